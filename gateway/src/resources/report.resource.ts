import { ReportReasonSchema, ReportSchema, ReportTargetTypeSchema, type Report } from '@inkwell/proto/users';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, writeValues } from '../jsonapi/index.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of reports. */
export const REPORT_TYPE = 'report';

/** The API names of what can be reported: the JSON:API types of the reported items (docs/api/safety.md, "Reports and moderation"). */
export const REPORT_TARGET_TYPE = protoEnumNames(ReportTargetTypeSchema);
/** The fixed list of reasons (docs/api/safety.md, "Reports and moderation"). */
export const REPORT_REASON = protoEnumNames(ReportReasonSchema);

/** The report type: what was reported, why, and by whom (the caller). */
export const REPORT_SCHEMA = defineResourceSchema({
  type: REPORT_TYPE,
  description: 'Your report of a story, chapter, comment, blog post, private message you received, or user, for the moderators.',
  attributes: {
    target_type: at.enumeration(REPORT_TARGET_TYPE.names, 'The JSON:API type of the reported item.'),
    target_id: at.string('The id of the reported item.'),
    reason: at.enumeration(REPORT_REASON.names),
    details: at.string('Your own words, at most 2,000 characters.'),
    date_reported: at.dateTime(undefined, { nullable: true }),
  },
  relationships: { reporter: { type: 'user', many: false } },
});

/** What POST /reports accepts: target_type, target_id and reason, required; details, optional. */
export const REPORT_WRITE = defineWriteSpec({
  resource: REPORT_SCHEMA,
  attributes: {
    target_type: writeValues.enumeration(REPORT_TARGET_TYPE.names),
    target_id: writeValues.id(),
    reason: writeValues.enumeration(REPORT_REASON.names),
    details: writeValues.string(),
  },
  required: ['target_type', 'target_id', 'reason'],
});

const REPORT_FIELDS = protoResourceMapper(ReportSchema, REPORT_SCHEMA, { enums: { target_type: REPORT_TARGET_TYPE, reason: REPORT_REASON } });

/** Maps a users.v1 Report to its JSON:API resource. Reports have no GET endpoint, so no `links.self`. */
export function toReportResource(report: Report): ResourceObject {
  return resourceObject(REPORT_TYPE, report.id, REPORT_FIELDS.attributes(report), { relationships: REPORT_FIELDS.relationships(report) });
}

/** The report of a create response. */
export function reportOf({ report }: { readonly report?: Report }): ResourceObject | null {
  return report === undefined ? null : toReportResource(report);
}
