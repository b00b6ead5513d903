// The screen of a page whose login the hub no longer accepts (the user was removed, given a new
// token, or logged out elsewhere): nothing of the old transcript or of who was logged in stays
// on screen; it says what happened and how to log in again.
export function LoginEnded() {
  return (
    <main class="login-ended" role="main" aria-labelledby="login-ended-title">
      <h1 id="login-ended-title">Your login has ended</h1>
      <p>
        The hub no longer accepts this browser’s login: the user may have been
        removed, given a new token, or logged out.
      </p>
      <p>
        To log in again, open a new login link (an admin makes one with{" "}
        <code>acphub users login-link NAME</code>).
      </p>
      <a class="button" href="/" ref={(el) => el?.focus()}>
        Log in again
      </a>
    </main>
  );
}
