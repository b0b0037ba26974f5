// The SMTP server of the e2e product (tests/helpers/smtp-inbox.ts): the product is started with
// SMTP_URL on this port (playwright.config.ts), and the portal spec starts the server there to
// read the confirmation codes the portal e-mails.

export const E2E_MAIL_FROM = 'E2E seller <no-reply@seller.example>';

/** 2000 above the product's port: apart for every engineer's WGS_E2E_PORT (the fake Stripe is 1000 above). */
export const e2eSmtpPort = () => Number(process.env.WGS_E2E_PORT ?? '3107') + 2000;
