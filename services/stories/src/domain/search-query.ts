/** One thing to look for: a bare word, or a "quoted phrase" whose words must appear in that order. */
export interface SearchTerm {
  kind: 'word' | 'phrase';
  text: string;
}

/**
 * A parsed `query` in web-search syntax (docs/api/stories.md, "Search"): every group of `all`
 * must match (a group of several terms is an `or`: any of them), and no term of `none` may.
 * Parsing never fails: any text is a query, possibly an empty one.
 */
export interface SearchExpression {
  all: SearchTerm[][];
  none: SearchTerm[];
}

interface Token {
  term: SearchTerm;
  negated: boolean;
  /** The bare word `or` (any case), neither quoted nor negated. */
  or: boolean;
}

const SPACE = /\s/u;

/** Splits `text` into words, "phrases" (an unclosed quote runs to the end) and their `-` signs. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (SPACE.test(text[i]!)) {
      i += 1;
      continue;
    }
    let negated = false;
    if (text[i] === '-' && i + 1 < text.length && !SPACE.test(text[i + 1]!)) {
      negated = true;
      i += 1;
    }
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      const stop = end === -1 ? text.length : end;
      const phrase = text.slice(i + 1, stop).trim().replace(/\s+/gu, ' ');
      i = stop + 1;
      if (phrase !== '') tokens.push({ term: { kind: 'phrase', text: phrase }, negated, or: false });
      continue;
    }
    let end = i;
    while (end < text.length && !SPACE.test(text[end]!) && text[end] !== '"') end += 1;
    const word = text.slice(i, end);
    i = end;
    tokens.push({ term: { kind: 'word', text: word }, negated, or: !negated && word.toLowerCase() === 'or' });
  }
  return tokens;
}

/**
 * Parses a search query the way web search engines read one: words must all match; `"a b"`
 * matches the words in that order; `-word` and `-"a phrase"` exclude; `x or y` matches either.
 * An `or` with nothing usable on one side is ignored, and a negated term never joins an `or`.
 * What counts as a word inside the terms (punctuation, stop words, stems) is the analyser's
 * business, not the parser's.
 */
export function parseSearchQuery(text: string): SearchExpression {
  const expression: SearchExpression = { all: [], none: [] };
  let joinNext = false;
  let lastWasPositive = false;
  for (const token of tokenize(text)) {
    if (token.or) {
      joinNext = lastWasPositive;
      continue;
    }
    if (token.negated) {
      expression.none.push(token.term);
      joinNext = false;
      lastWasPositive = false;
      continue;
    }
    const previous = expression.all.at(-1);
    if (joinNext && previous) previous.push(token.term);
    else expression.all.push([token.term]);
    joinNext = false;
    lastWasPositive = true;
  }
  return expression;
}

/** The text of the positive terms in order, for matching a whole title exactly; '' when there is an `or`. */
export function positiveText(expression: SearchExpression): string {
  if (expression.all.some((group) => group.length > 1)) return '';
  return expression.all.map((group) => group[0]!.text).join(' ');
}
