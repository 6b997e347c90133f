/** User text becomes a literal pattern: `a.b*` matches "a.b*", never "axbbb". */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
