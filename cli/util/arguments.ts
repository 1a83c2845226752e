import { InvalidArgumentError } from 'commander';
import { CELL_ID_PATTERN } from '../../schemas/manifest/index.ts';

/** A commander argument parser for a whole number within bounds (a usage error, exit 2, otherwise). */
export function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`a whole number from ${min} to ${max}.`);
    return n;
  };
}

/** A company's cell id (`cell-…`), checked before anything is sent. */
export function cellId(value: string): string {
  if (!CELL_ID_PATTERN.test(value)) throw new InvalidArgumentError('a company’s cell id, such as cell-acme.');
  return value;
}
