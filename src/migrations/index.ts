import { Migration20261122000000Foundation } from './Migration20261122000000Foundation.js';
import { Migration20261122010000Lifecycle } from './Migration20261122010000Lifecycle.js';
import { Migration20261122020000RepeatControl } from './Migration20261122020000RepeatControl.js';
import { Migration20261122021000KeyReservations } from './Migration20261122021000KeyReservations.js';
import { Migration20261122030000Webhooks } from './Migration20261122030000Webhooks.js';
import { Migration20261123000000ApplicantNotifications } from './Migration20261123000000ApplicantNotifications.js';
import { Migration20261123100000OutboxNotify } from './Migration20261123100000OutboxNotify.js';
import { Migration20261123200000NotificationAttempts } from './Migration20261123200000NotificationAttempts.js';
import { Migration20261123210000EndpointNotify } from './Migration20261123210000EndpointNotify.js';
import { Migration20261125000000IdempotencyHmac } from './Migration20261125000000IdempotencyHmac.js';
import { Migration20261125010000ReviewWorkbench } from './Migration20261125010000ReviewWorkbench.js';
import { Migration20261125020000AuditEvents } from './Migration20261125020000AuditEvents.js';
import { Migration20261125030000ConsoleTeam } from './Migration20261125030000ConsoleTeam.js';
import { Migration20261125100000ReportingRollups } from './Migration20261125100000ReportingRollups.js';
import { Migration20261125101000ReportingPartialDay } from './Migration20261125101000ReportingPartialDay.js';
import { Migration20261125105000RequestLogs } from './Migration20261125105000RequestLogs.js';
import { Migration20261125115000EngineFindings } from './Migration20261125115000EngineFindings.js';
import { Migration20261125121000RequestLogsLean } from './Migration20261125121000RequestLogsLean.js';
import { Migration20261126030000FaceIndex } from './Migration20261126030000FaceIndex.js';
import { Migration20261126031000LivenessChallenge } from './Migration20261126031000LivenessChallenge.js';
import { Migration20261125140000RequestLogsByKey } from './Migration20261125140000RequestLogsByKey.js';

/** Committed migrations, in order. The migrator applies these and nothing else. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000Foundation', class: Migration20261122000000Foundation },
  { name: 'Migration20261122010000Lifecycle', class: Migration20261122010000Lifecycle },
  { name: 'Migration20261122020000RepeatControl', class: Migration20261122020000RepeatControl },
  { name: 'Migration20261122021000KeyReservations', class: Migration20261122021000KeyReservations },
  { name: 'Migration20261122030000Webhooks', class: Migration20261122030000Webhooks },
  { name: 'Migration20261123000000ApplicantNotifications', class: Migration20261123000000ApplicantNotifications },
  { name: 'Migration20261123100000OutboxNotify', class: Migration20261123100000OutboxNotify },
  { name: 'Migration20261123200000NotificationAttempts', class: Migration20261123200000NotificationAttempts },
  { name: 'Migration20261123210000EndpointNotify', class: Migration20261123210000EndpointNotify },
  { name: 'Migration20261125000000IdempotencyHmac', class: Migration20261125000000IdempotencyHmac },
  { name: 'Migration20261125010000ReviewWorkbench', class: Migration20261125010000ReviewWorkbench },
  { name: 'Migration20261125020000AuditEvents', class: Migration20261125020000AuditEvents },
  { name: 'Migration20261125030000ConsoleTeam', class: Migration20261125030000ConsoleTeam },
  { name: 'Migration20261125100000ReportingRollups', class: Migration20261125100000ReportingRollups },
  { name: 'Migration20261125101000ReportingPartialDay', class: Migration20261125101000ReportingPartialDay },
  { name: 'Migration20261125105000RequestLogs', class: Migration20261125105000RequestLogs },
  { name: 'Migration20261125115000EngineFindings', class: Migration20261125115000EngineFindings },
  { name: 'Migration20261125121000RequestLogsLean', class: Migration20261125121000RequestLogsLean },
  { name: 'Migration20261125140000RequestLogsByKey', class: Migration20261125140000RequestLogsByKey },
  { name: 'Migration20261126030000FaceIndex', class: Migration20261126030000FaceIndex },
  { name: 'Migration20261126031000LivenessChallenge', class: Migration20261126031000LivenessChallenge },
];
