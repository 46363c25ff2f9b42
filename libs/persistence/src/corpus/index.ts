export * from './report.entity';
export * from './finding.entity';
export * from './finding-version.entity';
export * from './finding-note.entity';
export * from './retest-session.entity';
export * from './session-event.entity';
export * from './verdict.entity';
export * from './finding-status-change.entity';
export * from './corpus-state.entity';
export * from './finding-severity-count.entity';

import { CorpusStateEntity } from './corpus-state.entity';
import { FindingNoteEntity } from './finding-note.entity';
import { FindingSeverityCountEntity } from './finding-severity-count.entity';
import { FindingStatusChangeEntity } from './finding-status-change.entity';
import { FindingVersionEntity } from './finding-version.entity';
import { FindingEntity } from './finding.entity';
import { ReportEntity } from './report.entity';
import { RetestSessionEntity } from './retest-session.entity';
import { SessionEventEntity } from './session-event.entity';
import { VerdictEntity } from './verdict.entity';

/** The corpus entities, in the order of their foreign keys. */
export const CORPUS_ENTITIES: Function[] = [
  ReportEntity,
  FindingEntity,
  FindingVersionEntity,
  FindingNoteEntity,
  RetestSessionEntity,
  SessionEventEntity,
  VerdictEntity,
  CorpusStateEntity,
  FindingSeverityCountEntity,
  FindingStatusChangeEntity,
];
