// Small deterministic text analysis shared by the local text and code engines.

const STOP_WORDS = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its me my of on or our please should so than that the their them then there these this to was we what when which who why will with would you your'.split(
    ' ',
  ),
);

export function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu) ?? [];
}

/** The most frequent content words, ties broken by first appearance. */
export function keyTerms(text: string, limit = 6): string[] {
  const counts = new Map<string, { count: number; first: number }>();
  words(text).forEach((word, index) => {
    if (word.length < 3 || STOP_WORDS.has(word)) return;
    const entry = counts.get(word);
    if (entry) entry.count++;
    else counts.set(word, { count: 1, first: index });
  });
  return [...counts.entries()]
    .sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first)
    .slice(0, limit)
    .map(([word]) => word);
}

export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
