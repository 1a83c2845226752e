import { readFile } from 'node:fs/promises';
import { CliError, EXIT } from './errors.ts';

// A file named on the command line (a member list, an initialize request): one that cannot be
// read or parsed is the caller's mistake, said with the file's name (exit 2, code invalid_file).

export const invalidFile = (message: string) => new CliError(message, EXIT.usage, { code: 'invalid_file' });

export async function readInputFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw invalidFile(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

export function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidFile(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}
