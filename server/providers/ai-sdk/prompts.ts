import type { CodeTask, TextTask } from '../engine';

// The one prompt builder of every provider type: a system prompt and the user's turn.

const TEXT_SYSTEM: Record<TextTask['outputFormat'], string> = {
  text: 'Answer in plain text without markdown.',
  markdown: 'Answer in GitHub-flavoured markdown.',
  json: 'Answer with one JSON object and nothing else.',
};

// It names the object's members, so plain JSON mode (which OpenAI grants only when the prompt
// says JSON) gets the same shape a provider's structured output is held to.
const CODE_SYSTEM =
  'You write and analyse code. Never claim to have executed anything. Reply with one JSON object ' +
  '{"code": string, "explanation": string} and nothing else.';

export interface Prompt {
  system: string;
  user: string;
}

export function textPrompt(task: TextTask): Prompt {
  return {
    system: TEXT_SYSTEM[task.outputFormat],
    user: task.context ? `Context:\n${task.context}\n\nInput:\n${task.input}` : task.input,
  };
}

export function codePrompt(task: CodeTask): Prompt {
  const user = [
    task.language ? `Language: ${task.language}` : '',
    task.requirements.length ? `Requirements:\n${task.requirements.map((r) => `- ${r}`).join('\n')}` : '',
    `Input:\n${task.input}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  return { system: CODE_SYSTEM, user };
}
