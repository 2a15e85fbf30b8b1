import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { Story, StoriesService } from '@inkwell/proto/stories';
import type { Caller } from '../domain/bookshelf.js';
import type { StoryState } from '@inkwell/known-stories';

/** A caller as the stories service receives it: the request id travels too. */
export interface ForwardedCaller extends Caller {
  readonly requestId: string;
}

/**
 * Asks the stories service about stories, as the caller (its identity and scopes are forwarded as
 * metadata, so the stories service applies its own visibility rules).
 */
export class StoryDirectoryRepository {
  constructor(private readonly stories: GrpcClient<typeof StoriesService>) {}

  /**
   * The state of story `id` if it exists and `caller` may see it; undefined when the stories
   * service answers NOT_FOUND or PERMISSION_DENIED. Any other failure (the stories service is
   * down: UNAVAILABLE) propagates, so the request fails with 503 instead of a wrong 422.
   */
  async visibleStory(id: string, caller: ForwardedCaller): Promise<StoryState | undefined> {
    try {
      const { story } = await this.stories.getStory({ id }, { caller: { ...caller, scopes: [...caller.scopes] } });
      return story && stateOf(story);
    } catch (error) {
      if (isAppError(error) && (error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.PERMISSION_DENIED)) return undefined;
      throw error;
    }
  }

  /** Up to `limit` (at most 100) published stories, newest first, as an anonymous internal caller sees them (the demo seed). */
  async latestPublished(limit: number, requestId: string): Promise<StoryState[]> {
    const { stories } = await this.stories.listStories({ pageSize: limit }, { caller: { requestId, scopes: [] } });
    return stories.map(stateOf);
  }
}

function stateOf(story: Story): StoryState {
  return {
    storyId: story.id,
    authorId: story.authorId,
    published: story.published,
    deleted: false,
    version: story.dateModified === undefined ? new Date(0) : timestampDate(story.dateModified),
  };
}
