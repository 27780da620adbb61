// What was worked out from the last few texts of a document, looked up by the text itself: a
// version's text is read by several steps of its parse (chunks, groups, windows), and a key
// typed and then deleted brings the text before it back.
export class RecentTexts<T> {
  /** Most recently used first. */
  private readonly entries: { text: string; value: T }[] = [];

  constructor(private readonly size: number) {}

  /** What is kept for `text`, where it is; undefined when nothing is. */
  peek(text: string): T | undefined {
    return this.entries.find((entry) => entry.text === text)?.value;
  }

  /** What is kept for `text`, moved to the front, or else what `make` gives, kept there. */
  get(text: string, make: () => T): T {
    const at = this.entries.findIndex((entry) => entry.text === text);
    if (at !== -1) {
      const [known] = this.entries.splice(at, 1);
      this.entries.unshift(known);
      return known.value;
    }
    const value = make();
    this.entries.unshift({ text, value });
    this.entries.length = Math.min(this.entries.length, this.size);
    return value;
  }
}
