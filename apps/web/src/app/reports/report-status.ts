import type { ReportStatus } from '@corpus-chat/contracts';

/** A report's status in words (the API's values are identifiers). */
export function reportStatusLabel(status: ReportStatus): string {
  switch (status) {
    case 'extracting':
      return $localize`:@@reports.status.extracting:extracting`;
    case 'needs_review':
      return $localize`:@@reports.status.needsReview:needs review`;
    case 'ready':
      return $localize`:@@reports.status.ready:ready`;
    case 'failed':
      return $localize`:@@reports.status.failed:failed`;
    case 'cancelled':
      return $localize`:@@reports.status.cancelled:cancelled`;
  }
}
