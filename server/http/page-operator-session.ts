import { getOperatorSession } from '../auth/session';
import { pageData } from './page-answer';

// Apart from page-answer.ts, which `npm start`'s server loads outside Next: the session reads Next's request headers.

/** The signed-in operator of a page or route handler (auth/session.ts), the database away noted (503, not 500). */
export const pageOperatorSession = () => pageData(getOperatorSession);
