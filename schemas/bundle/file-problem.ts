import { formatPath, type Problem, problem } from '../problems.ts';

/** Problem about `files[index].path` or `files[index].content` of the request. */
export function fileProblem(index: number, field: 'path' | 'content', code: string, message: string): Problem {
  return problem(formatPath('files', [index, field]), code, message);
}
