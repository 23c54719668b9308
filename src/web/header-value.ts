// Whether a string can be sent as an HTTP header value: one rule for the gateway request and the gateway key in config.

/** RFC 9110 §5.5: visible characters, spaces and tabs (obs-text allowed); never CR or LF, which would inject a header. */
const FIELD_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

export function isHeaderValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}
