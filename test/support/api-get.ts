/**
 * GET `url`, asked again while the API answers 504 (its 3 s query cap: on two loaded cores ClickHouse
 * can stall for several seconds, a merge beside three suites), `attempts` times at most in all, a
 * second apart. The last answer is returned, whatever it is.
 */
export async function getAskingAgainOn504(url: string, attempts = 5): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url);
    if (res.status !== 504 || attempt >= attempts) return res;
    await res.body?.cancel();
    console.log(JSON.stringify({ retried: url, status: res.status, attempt }));
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
