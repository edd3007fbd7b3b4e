/**
 * A lead form's own questions as a lead's notes (CONTRACT.md sections 10 and 20): Google's custom
 * columns and Meta's unmapped `field_data` entries alike, one `question: answer` line each in the order
 * sent, cut to section 2's 5,000 characters. One formatter, so that the two sources' notes read alike.
 */

/** Section 2's limit on notes, in the validator's units (UTF-16 code units). */
export const NOTES_MAX = 5000;

export interface FormAnswer {
  readonly question: string;
  readonly answer: string;
}

/** At most `max` UTF-16 code units, never splitting a character in two. */
export const cutToUnits = (text: string, max: number): string => {
  if (text.length <= max) return text;
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max);
};

/** The answers as notes; empty when there are none. */
export const notesOfAnswers = (answers: readonly FormAnswer[]): string =>
  cutToUnits(answers.map(({ question, answer }) => `${question.trim()}: ${answer.trim()}`).join('\n'), NOTES_MAX).trim();
