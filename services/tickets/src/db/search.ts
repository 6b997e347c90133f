/** A contact's identities beyond the phone that a free-text search matches, as the contact document names them. */
export const SEARCHED_IDENTITIES = ['bsuid', 'parentBsuid', 'lid', 'username'] as const;
