import { useSyncExternalStore } from 'react';

// Whether the page's script has taken over: false in the server's HTML, true once hydrated. The
// portal's sign-in keeps its button disabled until then: submitted before, the browser posted the
// form to the page itself, which showed it again without a word.

const noSubscription = () => () => {};
const onTheClient = () => true;
const onTheServer = () => false;

export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, onTheClient, onTheServer);
}
