import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { apiDate } from '../jsonapi/document.builder.js';

/** A protobuf Timestamp as an API date (docs/api/foundation.md, "Documents"); an unset Timestamp (or the epoch) is null. */
export function timestampToApiDate(timestamp: Timestamp | undefined): string | null {
  return timestamp === undefined ? null : apiDate(timestampDate(timestamp));
}
