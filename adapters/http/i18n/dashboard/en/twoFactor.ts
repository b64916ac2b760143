/** The dashboard's two-factor sign-in page in English: setting it up, the recovery codes, turning it off. */
export const twoFactor = {
  title: "Two-factor sign-in",
  required: "Your account requires two-factor sign-in: set it up to continue.",
  intro: "After your password, signing in asks for a code from an app on your phone, so a stolen password alone opens nothing.",
  passwordToSetUp: "Your password, to set it up",
  setUp: "Set up two-factor sign-in",
  /** Setting up: the key to add to an app, then its code. */
  addToApp: "1. Add Fils to your authenticator app",
  /** The QR code's name for a screen reader (which reads the key below it instead). */
  qrLabel: "A QR code of the key, to scan with your authenticator app",
  addKey: "Scan the code with your app (Google Authenticator, 1Password, Authy…), or add an account with this key, time-based:",
  onThisPhone: "On this phone,",
  openInApp: "open it in your app",
  instead: "instead.",
  typeCode: "2. Type the code it shows",
  sixDigitCode: "6-digit code",
  turnOn: "Turn on",
  startAgain: "Start again with a new key",
  /** Just turned on: the recovery codes, shown once. */
  nowOn: "Two-factor sign-in is on",
  keepCodes: "Keep these recovery codes somewhere safe, apart from your phone: each signs you in once if you lose it.",
  shownOnce: "They are shown only now.",
  continue: "Continue to the dashboard",
  /** On: since when, and the recovery codes left (counts already formatted). */
  on: "On",
  since: (when: string) => `Since ${when}.`,
  codesLeft: "Recovery codes left:",
  ofTotal: (total: string) => `of ${total}.`,
  passwordToTurnOff: "Your password, to turn it off",
  codeToTurnOff: "A code from your app, or a recovery code",
  turnOff: "Turn off two-factor sign-in",
  turnedOff: (when: string) => `Two-factor sign-in is off since ${when}.`
}
