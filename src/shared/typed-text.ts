/**
 * Text the rep types that reaches the supplier's documents: a PO, notes, shipping instructions, a new
 * customer's name and addresses. It refuses the characters nobody sees on screen yet that change what
 * a document says: C0 and C1 controls (NUL among them; tab and line breaks are kept, a note has
 * lines) and the Unicode direction overrides and isolates, which make "PO-1234" display as
 * something else (the "Trojan Source" characters).
 */
import { z } from 'zod'

// Matching control characters is the point here, so the rule against them in patterns does not apply.
// eslint-disable-next-line no-control-regex
const unseen = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u

const unseenCharactersMessage =
  'Remove the characters that do not show on screen (control or text-direction characters, often pasted from another program): the supplier’s documents would carry them.'

/** Whether `value` carries a character typed text may not (above). */
function hasUnseenCharacters(value: string): boolean {
  return unseen.test(value)
}

/** A string of at most `max` characters, none of them unseen. */
export const typedText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !hasUnseenCharacters(value), unseenCharactersMessage)
