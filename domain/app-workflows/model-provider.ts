import { createHash } from 'node:crypto';

// The model step's provider: one call, a prompt and input in, the declared fields out. Pluggable;
// the default is a deterministic local provider (no network, the same answer for the same
// question), which tests use too.

export type FieldType = 'text' | 'integer' | 'real' | 'numeric' | 'boolean' | 'date' | 'timestamp' | 'json' | 'text[]' | 'number[]';

export interface ModelRequest {
  model: string | undefined;
  prompt: string;
  input: unknown;
  fields: Record<string, { type: FieldType; description?: string | undefined }>;
}

export interface ModelAnswer {
  fields: Record<string, unknown>;
  /** Prompt plus answer tokens, metered as model.tokens. */
  tokens: number;
  /** Priced cost in micro-USD (0 for the local provider). */
  costMicroUsd: number;
}

export interface ModelProvider {
  readonly name: string;
  /** `signal` aborts when the run's step is cancelled (worker shutdown, run cancelled). */
  analyze(request: ModelRequest, signal?: AbortSignal): Promise<ModelAnswer>;
}

/** About four characters a token, as providers count English text. */
const tokensOf = (text: string) => Math.ceil(text.length / 4);

/**
 * Answers from a hash of the request: counts and sizes of the input where a field can use them,
 * else a stable value per field. Not analysis, but real plumbing with a fixed answer.
 */
export const localModelProvider: ModelProvider = {
  name: 'local',
  async analyze(request) {
    const inputText = JSON.stringify(request.input ?? null);
    const digest = createHash('sha256').update(`${request.prompt}\n${inputText}`).digest();
    const size = Array.isArray(request.input) ? request.input.length : inputText.length;
    const fields: Record<string, unknown> = {};
    Object.entries(request.fields).forEach(([name, { type }], i) => {
      const byte = digest[i % digest.length]!;
      fields[name] =
        type === 'integer' || type === 'numeric'
          ? size
          : type === 'real'
            ? byte / 255
            : type === 'boolean'
              ? byte % 2 === 0
              : type === 'date'
                ? '1970-01-01'
                : type === 'timestamp'
                  ? '1970-01-01T00:00:00.000Z'
                  : type === 'json'
                    ? { size }
                    : type === 'text[]'
                      ? [name]
                      : type === 'number[]'
                        ? [size]
                        : `${name}: ${size} item(s) considered (${digest.toString('hex').slice(0, 8)})`;
    });
    return { fields, tokens: tokensOf(request.prompt) + tokensOf(inputText) + tokensOf(JSON.stringify(fields)), costMicroUsd: 0 };
  },
};
