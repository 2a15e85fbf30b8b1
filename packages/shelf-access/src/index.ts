export { ownsShelf, READ_BOOKSHELVES, shelfAccess, type ShelfAccess, type ShelfAccessFacts, type ShelfViewer } from './shelf-access.js';
