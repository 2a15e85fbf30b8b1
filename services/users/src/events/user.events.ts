import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';
import { UserCreatedSchema } from '@inkwell/proto/users';
import type { User } from '../domain/user.js';

/** The `UserCreated` outbox payload of a newly registered user (no e-mail: every service reads it). */
export function userCreated(user: User): EventPayloadInit {
  return {
    case: 'userCreated',
    value: create(UserCreatedSchema, { userId: user.id, name: user.name, dateJoined: timestampFromDate(user.dateJoined) }),
  };
}
