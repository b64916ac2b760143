/** The dashboard's settings pages in English: the settings page, the home page's support e-mail prompt, removing a teammate. */
export const settings = {
  title: "Settings",
  save: "Save",
  /** The refusal of a change the user's role may not make (`role` already worded). */
  notAllowed: (role: string) => `A ${role} cannot change the settings.`,
  /** The home page's prompt for a missing support e-mail. */
  prompt: {
    heading: "Where should your customers write for help?",
    help: "The customer portal and receipts show your support e-mail. You can change it later in Settings.",
    supportEmail: "Support e-mail",
    skip: "Skip for now",
    empty: "Enter your support e-mail, or skip for now.",
    /** The engine's refusal (already in the page's language) and the address as typed. */
    notSaved: (reason: string, typed: string) => `The support e-mail was not saved: ${reason} (you typed '${typed}').`,
    saved: (email: string) => `Saved: your customers are told to write to ${email}.`
  },
  business: {
    heading: "Business",
    name: "Business name",
    supportEmail: "Support e-mail",
    saved: "Saved."
  },
  timeZone: {
    heading: "Time zone",
    label: "Dates and times in the dashboard, and the days its totals count, are in",
    apiInUtc: "The API always answers in UTC.",
    save: "Save time zone",
    changed: (zone: string) => `Times are now shown in ${zone}.`
  },
  taxProfile: {
    heading: "Tax profile",
    none: "None: no VAT is charged and no tax documents are issued.",
    notSaved: "The tax profile was not saved: correct the fields marked below.",
    save: "Save tax profile",
    remove: "Remove the tax profile",
    saved: "Tax profile saved.",
    removed: "Tax profile removed: no VAT is charged and no tax documents are issued from now on."
  },
  team: {
    heading: "Team",
    onlyOwners: "Only owners manage the team.",
    roleOf: (email: string) => `Role of ${email}`,
    changeRole: "Change role",
    invited: "invited",
    active: "active",
    remove: "Remove…",
    removeWho: (email: string) => `Remove ${email}`,
    inviteEmail: "Invite by e-mail",
    role: "Role",
    invite: "Invite",
    chooseRole: "Choose a role",
    inviteLink: "Send this sign-in link to them (it works once, for 24 hours):",
    /** A teammate's new role (`role` already worded). */
    roleChanged: (email: string, role: string) => `${email} is now ${role}.`,
    removed: (email: string) => `Removed ${email}.`
  },
  /** The confirmation page of removing a teammate, or oneself. */
  remove: {
    titleYourself: "Remove yourself from the team?",
    title: (email: string) => `Remove ${email}?`,
    whatYourself: (email: string, role: string) =>
      `You (${email}, ${role}) lose access to this account at once: you are signed out everywhere, now.`,
    what: (email: string, role: string) =>
      `${email} (${role}) loses access to this account at once: signed out of every session, and a sign-in link sent to them stops working.`,
    auditStays: "What they did stays in the audit log. To let them back in, invite them again.",
    keepsOwner: "An account always keeps an owner: the last owner cannot be removed.",
    buttonYourself: "Remove myself",
    button: (email: string) => `Remove ${email}`
  },
  you: {
    heading: "Your sign-in",
    email: "E-mail",
    emailLabel: "E-mail you sign in with",
    yourPassword: "Your password",
    changeEmail: "Change e-mail",
    emailChanged: (email: string) => `You now sign in as ${email}.`,
    password: "Password",
    currentPassword: "Current password",
    newPassword: "New password (at least 12 characters)",
    changePassword: "Change password",
    passwordChanged: "Password changed. Your other sessions were signed out.",
    twoFactor: "Two-factor sign-in",
    twoFactorOn: "On: signing in asks for a code from your app.",
    twoFactorOff: "Off: your password alone signs you in.",
    manageTwoFactor: "Manage two-factor sign-in",
    setUpTwoFactor: "Set up two-factor sign-in",
    requireTwoFactor:
      "Require two-factor sign-in of everyone on this account (those without it set it up when they next sign in)",
    requiredHere: "This account requires it.",
    tickOrEmpty: "Tick the box, or leave it empty.",
    twoFactorRequired: "Two-factor sign-in is now required: whoever has not set it up is asked to when they next open a page.",
    twoFactorChoice: "Two-factor sign-in is now each user's choice."
  },
  sessions: {
    heading: "Sessions",
    signedIn: "Signed in",
    lastSeen: "Last seen",
    thisBrowser: "This browser",
    signOut: "Sign out",
    /** The sign-out button's label: the session by when it signed in (already formatted). */
    signOutLabel: (when: string) => `Sign out the session signed in ${when}`,
    signOutOthers: "Sign out all other sessions",
    signOutEverywhere: "Sign out everywhere, this browser too",
    signedOut: "That session is signed out.",
    othersSignedOut: "Every other session is signed out."
  }
}
