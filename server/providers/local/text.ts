import { CHARS_PER_TOKEN, type TextResult, type TextTask } from '../engine';
import { keyTerms, sentences, truncate, words } from './text-analysis';

// The offline text engine: it does not understand language. It answers with a clearly
// labelled, deterministic digest of the input (summary, key terms, counts), in the format asked.

/**
 * The digest, within the task's token cap (at CHARS_PER_TOKEN, the rule its usage is estimated
 * by) as a model stops at its cap: cut after the last whole word that fits, or mid-word when none
 * does, with the finish reason `length`. A JSON answer is never cut: cut, it would not parse.
 */
export function generateLocalText(task: TextTask): TextResult {
  const { text } = localDigest(task);
  const maxChars = task.maxOutputTokens === undefined ? Infinity : task.maxOutputTokens * CHARS_PER_TOKEN;
  if (text.length <= maxChars || task.outputFormat === 'json') return { text };
  const cut = text.slice(0, maxChars);
  // The cut ends a word when a blank follows it; else the word it splits goes, unless it is the only one.
  const lastBlank = /\s/.test(text[maxChars]!) ? maxChars : cut.search(/\s\S*$/);
  return { text: (lastBlank > 0 ? cut.slice(0, lastBlank) : cut).trimEnd(), finishReason: 'length' };
}

function localDigest(task: TextTask): { text: string } {
  const inputSentences = sentences(task.input);
  const summary = truncate(inputSentences.slice(0, 2).join(' ') || task.input.trim(), 400);
  const terms = keyTerms(`${task.input} ${task.context ?? ''}`);
  const wordCount = words(task.input).length;
  const contextNote = task.context ? truncate(sentences(task.context)[0] ?? task.context, 200) : undefined;
  const label = 'Local engine (offline, deterministic): a digest of your input, not a language model answer.';

  if (task.outputFormat === 'json') {
    return {
      text: JSON.stringify({
        engine: 'local',
        note: label,
        summary,
        key_terms: terms,
        word_count: wordCount,
        sentence_count: inputSentences.length,
        ...(contextNote ? { context: contextNote } : {}),
      }),
    };
  }
  if (task.outputFormat === 'markdown') {
    return {
      text: [
        `> ${label}`,
        '',
        '## Summary',
        '',
        summary,
        '',
        '## Key terms',
        '',
        ...(terms.length ? terms.map((term) => `- ${term}`) : ['- (none found)']),
        '',
        `_${wordCount} words in ${inputSentences.length} sentence(s)._`,
        ...(contextNote ? ['', '## Context', '', contextNote] : []),
      ].join('\n'),
    };
  }
  return {
    text: [
      `[${label}]`,
      `Summary: ${summary}`,
      `Key terms: ${terms.length ? terms.join(', ') : '(none found)'}`,
      `Length: ${wordCount} words in ${inputSentences.length} sentence(s).`,
      ...(contextNote ? [`Context: ${contextNote}`] : []),
    ].join('\n'),
  };
}
