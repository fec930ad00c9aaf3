// Counts in sentences for people: "1 tool call", "2 tool calls".

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
