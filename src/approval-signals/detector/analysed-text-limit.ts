/**
 * Longer shell text is not analysed (it asks, U04), and the terminal tool runs none longer: past
 * 128 KiB a system cannot hand a command to a shell at all (E2BIG), and a person cannot read it.
 */
export const MAX_ANALYSED_TEXT_CHARS = 100_000;
