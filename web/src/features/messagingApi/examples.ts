// The curl examples of the /MessagingAPI docs panel, for the tenant's own address
// (the page's origin: the API and the app share it) and a token placeholder.
export interface ApiExamples {
  endpoint: string;
  text: string;
  media: string;
  idempotent: string;
}

export function apiExamples(origin: string, token: string): ApiExamples {
  const endpoint = `${origin.replace(/\/+$/, '')}/api/messages/send`;
  const auth = `-H "Authorization: Bearer ${token}"`;
  return {
    endpoint,
    text: [
      `curl -X POST "${endpoint}" \\`,
      `  ${auth} \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d '{"number": "5565999990000", "body": "Olá! Seu pedido saiu para entrega."}'`,
    ].join('\n'),
    media: [
      `curl -X POST "${endpoint}" \\`,
      `  ${auth} \\`,
      `  -F "number=5565999990000" \\`,
      `  -F "body=Segue a nota fiscal" \\`,
      `  -F "medias=@nota.pdf"`,
    ].join('\n'),
    idempotent: [
      `curl -X POST "${endpoint}" \\`,
      `  ${auth} \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -H "Idempotency-Key: pedido-1042" \\`,
      `  -d '{"number": "5565999990000", "body": "Pedido 1042 confirmado", "whatsappId": 1}'`,
    ].join('\n'),
  };
}
