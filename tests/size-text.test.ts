// Sizes as people read them: doctor's free room, a backup's size, an omitted attachment.
import { expect, test } from "bun:test";
import { sizeText } from "../src/size-text.ts";

test.each([
  [0, "0 KiB"],
  [1, "1 KiB"],
  [1536, "2 KiB"],
  [1048576, "1 MiB"],
  [50 * 1048576, "50 MiB"],
  [1073741823, "1.0 GiB"],
  [5000 * 1048576, "4.9 GiB"],
  [77173 * 1048576, "75 GiB"],
  [9.96 * 1024 ** 3, "10 GiB"],
  [2 * 1024 ** 4, "2048 GiB"],
])("%d bytes read as %s", (bytes, text) => {
  expect(sizeText(bytes)).toBe(text);
});
