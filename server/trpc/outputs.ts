import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router';
import type { PortalRouter } from './portal/portal-router';

// What the dashboard's and the portal's procedures answer, and the view types of their pages and
// components named from those answers: the UI reads the API's contract, so a rename inside the
// domain stops here (at the router's type check) and never reaches a component.

export type DashboardOutputs = inferRouterOutputs<AppRouter>;
export type PortalOutputs = inferRouterOutputs<PortalRouter>;

type Dashboard = DashboardOutputs;

export type KeyView = Dashboard['keys']['get'];
export type KeyWebhook = Omit<Dashboard['keys']['webhook'], 'deliveries'>;
export type DeliveryView = Dashboard['keys']['webhook']['deliveries'][number];
export type VersionChange = Dashboard['packages']['diff']['changes'][number];
export type EngineChoice = Dashboard['providers']['engineChoices'][number];
export type ProviderView = Dashboard['providers']['list'][number];
export type AuditTarget = Dashboard['audit']['list']['items'][number]['target'];
export type MediaLink = NonNullable<Dashboard['jobs']['resultLink']>;
export type UsageView = Dashboard['usage']['list']['items'][number];
export type UsageTotals = Dashboard['usage']['totals'];
export type DailyUsage = Dashboard['overview']['get']['daily'][number];
export type TrafficOverview = Dashboard['refusals']['overview'];
export type TrafficBucket = TrafficOverview['buckets'][number];
export type MarginReport = Dashboard['margin']['report'];
export type MarginFigures = MarginReport['totals'];
export type PurchaseView = Dashboard['sales']['forKey'][number];

export type PortalOverview = PortalOutputs['overview'];
export type PortalOwner = PortalOverview['owner'];
export type PortalCall = PortalOverview['calls'][number];
export type PortalJob = PortalOverview['jobs'][number];
export type PortalUpload = PortalOverview['uploads'][number];
export type PortalSales = PortalOutputs['sales'];
export type ConfirmedChange = PortalOutputs['confirmChange'];
