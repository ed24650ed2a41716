// A reporter for Node's test runner that run-tests.mjs adds beside TAP: one
// JSON line per skipped test and per skipped group, with its file, the names
// of the groups above it, and the reason. A `describe` given `skip` never runs
// its body, so its tests are never known and the runner's own "# skipped"
// count leaves the whole group out; here it is one entry, marked a group.
export default async function* skipReporter(source) {
  /** Per file, the names of the tests and groups started so far, by nesting level. */
  const started = new Map();
  for await (const { type, data } of source) {
    if (type === "test:start") {
      const names = started.get(data.file) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      started.set(data.file, names);
    } else if ((type === "test:pass" || type === "test:fail") && data.skip !== undefined && data.skip !== false) {
      const above = (started.get(data.file) ?? []).slice(0, data.nesting);
      const skip = {
        file: data.file ?? "",
        names: [...above, data.name],
        group: data.details?.type === "suite",
        reason: typeof data.skip === "string" ? data.skip : "",
      };
      yield `${JSON.stringify(skip)}\n`;
    }
  }
}
