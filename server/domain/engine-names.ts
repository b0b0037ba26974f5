/** An operation's `engine` setting is one engine name or an ordered list of fallbacks. */
export function engineNamesOf(setting: string | readonly string[]): string[] {
  return typeof setting === 'string' ? [setting] : [...setting];
}
