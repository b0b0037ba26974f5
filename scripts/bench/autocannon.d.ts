// The part of autocannon 9's JS API that scripts/bench.ts uses (the package ships no types,
// and @types/autocannon is not a dependency).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      duration?: number;
      overallRate?: number;
      requests?: Array<Request & { setupRequest?: (request: Request) => Request }>;
    }
    interface Histogram {
      average: number;
      total: number;
      p50: number;
      p99: number;
    }
    interface Result {
      /** sent: requests written, answered or not. */
      requests: Histogram & { sent: number };
      latency: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
