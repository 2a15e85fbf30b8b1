/** The webhooks service has no library exports: it is a process (src/main.ts). */
export {};
