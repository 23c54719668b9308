// OAuth parameter reading: form bodies only, capped in size, and a repeated parameter makes the request invalid.
import { describe, expect, test } from "bun:test";
import { readForm, singleParams } from "../../src/oauth/form.ts";

const FORM = "application/x-www-form-urlencoded";
const post = (body: BodyInit | null, contentType: string | null): Request =>
  new Request("http://127.0.0.1/token", { method: "POST", body, headers: contentType === null ? {} : { "content-type": contentType } });
const chunked = (chunks: string[]): ReadableStream<Uint8Array> =>
  new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

describe("singleParams", () => {
  test("decodes each parameter once", () => {
    expect(singleParams(new URLSearchParams("grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"))).toEqual(
      {
        ok: true,
        params: { grant_type: "authorization_code", code: "abc", redirect_uri: "https://app.example/cb" },
      },
    );
  });

  test("a repeated parameter is a 400 that names it, even when both values agree or one is empty", () => {
    for (const query of ["code=a&code=b", "code=a&code=a", "code=&code=a", "a=1&redirect_uri=x&b=2&redirect_uri=y"]) {
      const result = singleParams(new URLSearchParams(query));
      expect({ query, ok: result.ok }).toEqual({ query, ok: false });
      if (!result.ok) {
        expect(result.status).toBe(400);
        expect(result.description).toMatch(/"(code|redirect_uri)" is repeated/);
      }
    }
  });

  test("the name quoted back is cut to 40 characters", () => {
    const name = "n".repeat(500);
    const result = singleParams(new URLSearchParams(`${name}=1&${name}=2`));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.description).toBe(`the parameter "${"n".repeat(40)}" is repeated`);
  });

  test("names that exist on Object.prototype are ordinary parameters, counted like any other", () => {
    expect(singleParams(new URLSearchParams("constructor=x&toString=y&hasOwnProperty=z"))).toEqual({
      ok: true,
      params: { constructor: "x", toString: "y", hasOwnProperty: "z" },
    });
    expect(singleParams(new URLSearchParams("constructor=x&constructor=y"))).toMatchObject({ ok: false, status: 400 });
  });

  test("no parameters is an empty set", () => {
    expect(singleParams(new URLSearchParams(""))).toEqual({ ok: true, params: {} });
  });
});

describe("readForm", () => {
  test("reads an x-www-form-urlencoded body, whatever the media type's case or parameters", async () => {
    for (const type of [FORM, "Application/X-WWW-Form-Urlencoded", `${FORM}; charset=UTF-8`, ` ${FORM} ;charset=utf-8`]) {
      expect({ type, result: await readForm(post("client_id=a&code=b", type), 1024) }).toEqual({
        type,
        result: { ok: true, params: { client_id: "a", code: "b" } },
      });
    }
  });

  test("any other media type, or none, is a 400", async () => {
    for (const type of ["application/json", "text/plain", "multipart/form-data; boundary=x", `${FORM}x`, null]) {
      expect({ type, result: await readForm(post("client_id=a", type), 1024) }).toMatchObject({ type, result: { ok: false, status: 400 } });
    }
  });

  test("a body at the cap is read; one byte more is a 413", async () => {
    const atCap = `a=${"x".repeat(98)}`;
    expect(await readForm(post(atCap, FORM), 100)).toMatchObject({ ok: true, params: { a: "x".repeat(98) } });
    expect(await readForm(post(`${atCap}x`, FORM), 100)).toMatchObject({ ok: false, status: 413 });
  });

  test("the cap counts bytes, not characters", async () => {
    const body = `a=${"é".repeat(40)}`;
    expect(await readForm(post(body, FORM), 60)).toMatchObject({ ok: false, status: 413 });
    expect(await readForm(post(body, FORM), 82)).toMatchObject({ ok: true });
  });

  test("a streamed body without a declared length is capped too", async () => {
    expect(await readForm(post(chunked(["a=", "x".repeat(60), "y".repeat(60)]), FORM), 100)).toMatchObject({ ok: false, status: 413 });
    expect(await readForm(post(chunked(["a=", "x".repeat(40)]), FORM), 100)).toMatchObject({ ok: true, params: { a: "x".repeat(40) } });
  });

  test("an empty body is an empty parameter set; repeated parameters in a body are refused", async () => {
    expect(await readForm(post("", FORM), 100)).toEqual({ ok: true, params: {} });
    expect(await readForm(post("code=a&code=b", FORM), 100)).toMatchObject({ ok: false, status: 400 });
  });
});
