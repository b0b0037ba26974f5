export function withAsyncContextFrame(process: {
  version: string;
  execPath: string;
  execArgv: string[];
  argv: string[];
  nodeOptions: string | undefined;
  canExec: boolean;
}): string[] | undefined;

export function restartWithAsyncContextFrame(): void;
