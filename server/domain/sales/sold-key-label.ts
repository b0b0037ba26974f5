/** The label of a key sold through Checkout. Its buyer's e-mail is kept apart (buyer_email), never in the label. */
export const SOLD_KEY_LABEL = 'Bought through Stripe Checkout';

/** The label sold keys had before: `Bought by <e-mail>`, which outlived a cleared or changed e-mail. */
export const legacySoldKeyLabel = (email: string) => `Bought by ${email}`.slice(0, 200);
