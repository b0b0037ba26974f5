import { refuseParam } from '../openai-errors';

// Chat messages as the one prompt an operation takes: the system and developer messages become its
// context, the conversation its input (a single user message as it is; a longer conversation as a
// transcript, each turn named). Only text content is taken; images, audio, files and tool calls are
// refused naming the message.

export interface ChatPrompt {
  input: string;
  context?: string;
}

const ROLES = { system: 'context', developer: 'context', user: 'User', assistant: 'Assistant' } as const;

/** A text as /v1's fields take it (no U+0000, no lone surrogate), refused naming where it was sent. */
function checkedText(text: string, at: string): string {
  if (text.includes('\u0000') || !text.isWellFormed()) {
    throw refuseParam(at, `${at} must be valid Unicode without the NUL character (U+0000).`, 'invalid_value');
  }
  return text;
}

function textOf(content: unknown, at: string): string {
  if (typeof content === 'string') return checkedText(content, at);
  if (!Array.isArray(content)) throw refuseParam(at, `${at} must be a string or a list of text parts.`, 'invalid_type');
  return content
    .map((part: unknown, index) => {
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      if (type !== 'text' || typeof text !== 'string') {
        throw refuseParam(`${at}[${index}]`, `${at}[${index}]: only text parts are supported (type "text").`, 'unsupported_content');
      }
      // Never silently dropped: a part's other members (cache hints, annotations) are refused naming them.
      const extra = Object.keys(part as object).find((member) => member !== 'type' && member !== 'text');
      if (extra) throw refuseParam(`${at}[${index}].${extra}`, `${at}[${index}].${extra} is not supported.`);
      return checkedText(text, `${at}[${index}].text`);
    })
    .join('');
}

const ALLOWED_MEMBERS = new Set(['role', 'content', 'name']);

export function chatPrompt(messages: unknown): ChatPrompt {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw refuseParam('messages', 'messages must be a non-empty list of messages.', 'invalid_value');
  }
  const context: string[] = [];
  const turns: { speaker: string; text: string }[] = [];
  messages.forEach((message: unknown, index) => {
    const at = `messages[${index}]`;
    if (message === null || typeof message !== 'object') throw refuseParam(at, `${at} must be an object.`, 'invalid_type');
    const extra = Object.keys(message).find((member) => !ALLOWED_MEMBERS.has(member));
    if (extra) throw refuseParam(`${at}.${extra}`, `${at}.${extra} is not supported (tool calls, audio and refusals are not).`);
    const { role, content, name } = message as { role?: unknown; content?: unknown; name?: unknown };
    if (name !== undefined && typeof name !== 'string') throw refuseParam(`${at}.name`, `${at}.name must be a string.`, 'invalid_type');
    const kind = typeof role === 'string' ? ROLES[role as keyof typeof ROLES] : undefined;
    if (!kind) throw refuseParam(`${at}.role`, `${at}.role must be system, developer, user or assistant.`, 'unsupported_value');
    const text = textOf(content, `${at}.content`);
    if (kind === 'context') context.push(text);
    else turns.push({ speaker: kind, text });
  });
  if (turns.length === 0) throw refuseParam('messages', 'messages must hold at least one user message.', 'invalid_value');
  const single = turns.length === 1 && turns[0]!.speaker === 'User';
  const input = single ? turns[0]!.text : turns.map((turn) => `${turn.speaker}: ${turn.text}`).join('\n\n');
  return { input, ...(context.length > 0 ? { context: context.join('\n\n') } : {}) };
}

/** The prompt's characters, for the token estimate of a call whose engine reported none. */
export const promptChars = (prompt: ChatPrompt) => prompt.input.length + (prompt.context?.length ?? 0);
