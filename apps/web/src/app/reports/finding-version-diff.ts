import {
  EDITABLE_FINDING_FIELDS,
  type EditableFindingField,
  type FindingVersionView,
} from '@corpus-chat/contracts';

/** One field an edit changed, as shown in a finding's history. */
export interface FieldChange {
  field: EditableFindingField;
  before: string;
  after: string;
}

/** A version with what it changed from the one before (nothing for version 1). */
export interface VersionWithChanges {
  version: FindingVersionView;
  changes: FieldChange[];
}

const shown = (field: EditableFindingField, v: FindingVersionView): string => {
  const value = field === 'cwe' ? v.cwe.map((c) => `CWE-${c}`) : v[field];
  if (Array.isArray(value)) return value.join(', ') || '—';
  return field === 'impact' ? (value ?? '—') : value || '—';
};

/** Versions newest first, each with the editable fields that differ from the previous version. */
export function versionChanges(versions: readonly FindingVersionView[]): VersionWithChanges[] {
  const sorted = [...versions].sort((a, b) => a.version - b.version);
  return sorted
    .map((version, i) => {
      const prev = sorted[i - 1];
      const changes = prev
        ? EDITABLE_FINDING_FIELDS.filter((f) => shown(f, prev) !== shown(f, version)).map((field) => ({
            field,
            before: shown(field, prev),
            after: shown(field, version),
          }))
        : [];
      return { version, changes };
    })
    .reverse();
}
