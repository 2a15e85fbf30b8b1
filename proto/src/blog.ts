/** inkwell.blog.v1: the BlogPost resource, BlogService, and the blog post events. */
export * from './gen/inkwell/blog/v1/blog_pb.js';
export * from './gen/inkwell/blog/v1/blog_service_pb.js';
export * from './gen/inkwell/blog/v1/events_pb.js';
