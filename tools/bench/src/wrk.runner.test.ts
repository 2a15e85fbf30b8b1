import { describe, expect, it } from 'vitest';
import { parseWrkOutput } from './wrk.runner.js';

const REPORT = `Running 10s test @ http://127.0.0.1:8080/api/v1/users/1
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    30.12ms   12.01ms 223.68ms   90.00%
    Req/Sec     1.10k   120.00     1.30k    70.00%
  Latency Distribution
     50%  850.00us
     75%   33.43ms
     90%   40.00ms
     99%    1.20s
  11000 requests in 10.00s, 5.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:   1100.25
Transfer/sec:    512.00KB
`;

describe('parseWrkOutput', () => {
  it('reads req/s, p50 and p99 in milliseconds whatever unit wrk printed, and counts errors', () => {
    expect(parseWrkOutput(REPORT)).toEqual({ requestsPerSecond: 1100.25, p50Ms: 0.85, p99Ms: 1200, errors: 7 });
  });

  it('rejects text that is not a wrk report', () => {
    expect(() => parseWrkOutput('wrk: command not found')).toThrow(/not a wrk report/);
  });
});
