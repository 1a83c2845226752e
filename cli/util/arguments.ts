import { InvalidArgumentError } from 'commander';

/** A commander argument parser for a whole number within bounds (a usage error, exit 2, otherwise). */
export function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`a whole number from ${min} to ${max}.`);
    return n;
  };
}
