/** An operator's verdict on an assistant answer. */
export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];

/** Longest optional comment kept with a rating. */
export const MAX_FEEDBACK_COMMENT_CHARS = 2000;

/** The signed-in operator's feedback on one turn (shown under the answer after a reload). */
export interface TurnFeedbackView {
  turnId: string;
  rating: FeedbackRating;
  comment: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One row of the admins' feedback list: the rating, who gave it, and what it was about. */
export interface FeedbackEntryView extends TurnFeedbackView {
  chatId: string;
  chatTitle: string;
  operatorId: string;
  operatorName: string;
  /** The operator's question of the turn (first 300 characters). */
  question: string;
}

/** `GET /api/feedback` (admin): newest change first. */
export interface FeedbackPage {
  entries: FeedbackEntryView[];
  total: number;
  limit: number;
  offset: number;
}
