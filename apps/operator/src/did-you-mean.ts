import { closestMatch } from '@orkestra/types';

/** didYouMean returns `; did you mean \`x\`?` for the closest candidate, or an empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closestMatch(word, candidates);
  return match == null ? '' : `; did you mean \`${match}\`?`;
}
