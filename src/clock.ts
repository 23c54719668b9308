// Time since a wall-clock moment, read so that a clock set back cannot make anything wait for it to catch up.

/**
 * `now - then`, or Infinity when `then` is in the future: the clock was set back since (an NTP step, a board without a
 * battery-backed clock at boot, the owner fixing the date). Throttles, lockout windows and retry intervals that read
 * it then start afresh instead of waiting out the step, which can be days. (Those measured from a time that is also
 * stored or compared with stored times stay on the wall clock; deadlines and retry waits that live only in this
 * process use performance.now(), which no clock setting moves.)
 */
export function elapsedSince(then: number, now: number): number {
  return now >= then ? now - then : Number.POSITIVE_INFINITY;
}
