import { refuseParam } from './openai-errors';

// The parameters of an OpenAI request, checked strictly: a parameter the route honours is read with
// its type checked; one OpenAI defines that the package cannot honour, or one nobody defines, is 400
// naming it in `param`. Nothing is silently dropped.

export class OpenAIParams {
  private readonly seen = new Set<string>();

  constructor(private readonly body: Record<string, unknown>) {}

  /** The parameter's value if sent (null counts as not sent, as OpenAI reads it). */
  optional(name: string): unknown {
    this.seen.add(name);
    const value = this.body[name];
    return value === null ? undefined : value;
  }

  string(name: string): string | undefined {
    const value = this.optional(name);
    if (value !== undefined && typeof value !== 'string') throw refuseParam(name, `${name} must be a string.`, 'invalid_type');
    return value;
  }

  /** A number within [min, max]; `integer` for counts. */
  number(name: string, min: number, max: number, integer = false): number | undefined {
    const value = this.optional(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
      throw refuseParam(name, `${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}.`, 'invalid_value');
    }
    return value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.optional(name);
    if (value !== undefined && typeof value !== 'boolean') throw refuseParam(name, `${name} must be true or false.`, 'invalid_type');
    return value;
  }

  /** A string from a fixed list. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value !== undefined && !allowed.includes(value as T)) {
      throw refuseParam(name, `${name} must be one of ${allowed.join(', ')} here.`, 'unsupported_value');
    }
    return value as T | undefined;
  }

  /** A parameter honoured only at OpenAI's default (`n: 1`): any other value is refused. */
  onlyDefault(name: string, defaults: readonly unknown[]): void {
    const value = this.optional(name);
    if (value !== undefined && !defaults.includes(value)) {
      throw refuseParam(name, `${name}: only ${defaults.map((v) => JSON.stringify(v)).join(' or ')} is supported by this service.`);
    }
  }

  /** Refuses every parameter not read: one the service does not support, or an unknown one. */
  done(): void {
    for (const name of Object.keys(this.body)) {
      if (this.seen.has(name) || this.body[name] === null) continue;
      throw refuseParam(name, `${name} is not supported by this service (docs/openai-compatible.md lists what is).`);
    }
  }
}
