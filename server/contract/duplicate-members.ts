// JSON.parse keeps the last of repeated member names silently; the contract makes them a
// 400. This scanner runs over text JSON.parse already accepted, so it only tracks strings,
// nesting and which strings are member names.

export function findDuplicateMember(json: string): string | undefined {
  const stack: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const start = i;
      for (i++; i < json.length; i++) {
        const c = json.charCodeAt(i);
        if (c === 0x5c /* \ */) i++;
        else if (c === 0x22) break;
      }
      const members = stack[stack.length - 1];
      if (expectingKey && members) {
        const raw = json.slice(start, i + 1);
        const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (members.has(name)) return name;
        members.add(name);
        expectingKey = false;
      }
    } else if (ch === 0x7b /* { */) {
      stack.push(new Set());
      expectingKey = true;
    } else if (ch === 0x5b /* [ */) {
      stack.push(null);
      expectingKey = false;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
    } else if (ch === 0x2c /* , */) {
      expectingKey = stack[stack.length - 1] !== null && stack.length > 0;
    }
  }
  return undefined;
}
