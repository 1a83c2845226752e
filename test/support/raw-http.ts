import http from 'node:http';

// Requests over raw node:http: no redirect followed, no body decompressed, every header as sent.
// Free of vitest, so benches use it too.

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export function rawGet(url: string, headers: Record<string, string> = {}, method = 'GET', body?: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body: answer, text: answer.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
