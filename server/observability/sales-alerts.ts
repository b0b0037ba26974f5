import { countSalesAlert } from './metrics';

// A payment the operator must look at: one JSON line on stderr (whatever LOG_FORMAT says: this is
// not a request line) and the wgs_sales_alerts_total counter; the dashboard shows the purchase.

export interface SalesAlert {
  reason: 'fulfilment_refused';
  purchase_id: string;
  stripe_session_id: string;
  detail: string;
}

export function alertOperator(alert: SalesAlert): void {
  console.error(JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: 'sales alert', ...alert }));
  countSalesAlert(alert.reason);
}
