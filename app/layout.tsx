import type { Metadata } from 'next';
import type { ReactNode } from 'react';
// The stylesheets in cascade order (a later one may refine an earlier one's rules).
import './styles/base.css';
import './styles/shell.css';
import './styles/data.css';
import './styles/forms.css';
import './styles/widgets.css';
import './styles/public.css';

// Every page is rendered per request, so each carries the script nonce of its own answer (proxy.ts).
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'Workflow Generation Service',
  description: 'Package-locked AI operations behind one strict API.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
