/** A bookshelf as the stories service copies it from the bookshelves events. */
export interface ShelfSnapshot {
  id: string;
  ownerId: string;
  private: boolean;
  dateModified: Date;
}

/** A bookshelf item as the stories service copies it from the bookshelves events. */
export interface ShelfItemSnapshot {
  /** The item id: a story added again after removal gets a new one. */
  id: string;
  bookshelfId: string;
  storyId: string;
  read: boolean;
  dateAdded: Date;
}
