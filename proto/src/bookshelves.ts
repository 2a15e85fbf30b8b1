/** inkwell.bookshelves.v1: Bookshelf and BookshelfItem, BookshelvesService, and the bookshelf events. */
export * from './gen/inkwell/bookshelves/v1/bookshelves_pb.js';
export * from './gen/inkwell/bookshelves/v1/bookshelves_service_pb.js';
export * from './gen/inkwell/bookshelves/v1/events_pb.js';
