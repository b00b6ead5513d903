// Logging in with a login URL as a browser does (issue 34, item 16): open the URL (a page with
// a button; the code is not spent yet), then post its form from the hub's own origin with the
// page's nonce cookie. The cookie header to send afterwards, or the refused answer.
import { request } from "node:http";
import { request as httpsRequest } from "node:https";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// One raw HTTP request (fetch would follow redirects and refuse to set Origin/Cookie freely);
// an https:// URL trusts only `ca`.
export function rawRequest(
  url: string,
  method = "GET",
  headers: Record<string, string> = {},
  body?: string,
  ca?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const send = u.protocol === "https:" ? httpsRequest : request;
    const req = send(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers,
        ...(ca ? { ca } : {}),
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The login page a URL opens: its status, the nonce cookie and form fields it gives. */
export async function openLoginPage(
  loginUrl: string,
  ca?: string,
): Promise<{
  page: Answer;
  nonceCookie?: string;
  form?: URLSearchParams;
}> {
  const page = await rawRequest(loginUrl, "GET", {}, undefined, ca);
  const setCookie = [page.headers["set-cookie"] ?? []].flat();
  const nonceCookie = setCookie
    .find((c) => /^acphub_login(_\d+)?=/.test(c))
    ?.split(";")[0];
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1];
  const code = field("code");
  const nonce = field("nonce");
  const form =
    code !== undefined && nonce !== undefined
      ? new URLSearchParams({ code, nonce })
      : undefined;
  return { page, nonceCookie, form };
}

/** Posts a login form to the hub, as its page's button does (Origin: the hub's own). */
export function postLogin(
  loginUrl: string,
  form: URLSearchParams,
  headers: Record<string, string>,
  ca?: string,
): Promise<Answer> {
  const origin = new URL(loginUrl).origin;
  return rawRequest(
    `${origin}/login`,
    "POST",
    {
      Origin: origin,
      "Content-Type": "application/x-www-form-urlencoded",
      ...headers,
    },
    form.toString(),
    ca,
  );
}

/** Logs in with a login URL as the page does; the session cookie ("acphub_session_PORT=…"). */
export async function loginWith(
  loginUrl: string,
  ca?: string,
): Promise<string> {
  const { page, nonceCookie, form } = await openLoginPage(loginUrl, ca);
  // A hub from before issue 34 logged in on the GET itself: taken as is, so that the tests of
  // what a login may reach also run (and fail) against it; the CSRF test refuses that flow.
  const early = sessionOf(page);
  if (page.status === 303 && early) return early;
  if (page.status !== 200 || !nonceCookie || !form)
    throw new Error(`login page refused (${page.status}): ${page.body}`);
  const answer = await postLogin(loginUrl, form, { Cookie: nonceCookie }, ca);
  if (answer.status !== 303)
    throw new Error(`login refused (${answer.status}): ${answer.body}`);
  return sessionOf(answer)!;
}

// The session cookie ("acphub_session_PORT=…"; before issue 38 "acphub_session=…") an answer
// sets, if any.
export function sessionOf(answer: Answer): string | undefined {
  return [answer.headers["set-cookie"] ?? []]
    .flat()
    .find((c) => /^acphub_session(_\d+)?=/.test(c))
    ?.split(";")[0];
}
