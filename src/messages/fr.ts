// Every message of the CLI and the simulator, in French (the default). Same keys as en.ts.
import type { Messages } from './en.ts';

export const fr: Messages = {
  cli: {
    usage: 'usage : saphir <commande> [options]',
    more: "saphir help COMMANDE ou saphir COMMANDE --help pour le détail d'une commande ; saphir --version",
    unknown: (name: string) => `commande inconnue « ${name} »`,
    version: (v: string) => `saphir ${v}`,
    internal: "erreur interne (SAPHIR_DEBUG=1 montre d'où elle vient)",
    summaries: {
      check: 'vérifie des codes de tickets (arguments ou entrée standard)',
      gen: "génère les codes signés d'un bloc",
      audit: "contrôle un fichier de codes par rapport à l'article 3",
      decode: 'décode une capture de scanner (HID, série, image)',
      scan: 'lit un scanner branché sur cet ordinateur',
      image: 'images du firmware : image inspect FICHIER',
      sim: 'simulateur du terminal (scénarios, interactif, passerelles, --pty)',
      demo: 'la démonstration du simulateur (npm start)',
      flash: 'installe une image du firmware par une liaison série',
      device: 'ce qu’un appareil exécute et à quoi il se fie, demandé par son port de service (device info)',
      ledger: 'le journal des paiements d’un appareil, lu par son port de service (ledger export)',
      registry:
        'le registre central des tickets payés de la flotte : le servir, enrôler les appareils, rapports, campagnes de mise à jour, avis',
      notice: 'avis de l’opérateur : create, sign, inspect, push',
      ports: 'les ports série et les appareils qui y répondent',
      help: "help [COMMANDE] : cette liste, ou l'aide d'une commande",
    },
  },
  args: {
    lang: (v: string) => `--lang vaut fr ou en, pas « ${v} »`,
    int: (name: string, min: number, max: number) => `${name} doit être un entier de ${min} à ${max}`,
    unknownOption: (opt: string) => `option inconnue « ${opt} »`,
    needsValue: (opt: string) => `l'option « ${opt} » attend une valeur`,
    noValue: (opt: string) => `l'option « ${opt} » ne prend pas de valeur`,
    unexpected: (arg: string) => `argument en trop « ${arg} »`,
    other: (detail: string) => `arguments incorrects : ${detail}`,
  },
  os: {
    errno: (code: string, where?: string): string => {
      const at = where ? ` (${where})` : '';
      switch (code) {
        case 'ENOENT':
          return 'fichier ou dossier introuvable';
        case 'EACCES':
        case 'EPERM':
          return 'accès refusé';
        case 'EISDIR':
          return 'c’est un dossier, pas un fichier';
        case 'ENOTDIR':
          return 'une partie du chemin n’est pas un dossier';
        case 'EEXIST':
          return 'existe déjà';
        case 'ENOSPC':
          return 'plus de place sur le disque';
        case 'EROFS':
          return 'système de fichiers en lecture seule';
        case 'EBUSY':
          return 'occupé : un autre programme le tient';
        case 'EMFILE':
        case 'ENFILE':
          return 'trop de fichiers ouverts';
        case 'ENOTTY':
          return 'pas un port série';
        case 'EIO':
          return 'erreur d’entrée-sortie';
        case 'ENODEV':
        case 'ENXIO':
          return 'périphérique absent (débranché ?)';
        case 'EPIPE':
          return 'l’autre côté a fermé';
        case 'EADDRINUSE':
          return `adresse déjà utilisée${at} : un autre serveur y écoute (--port pour en choisir une autre)`;
        case 'EADDRNOTAVAIL':
          return `adresse indisponible sur cet ordinateur${at}`;
        case 'ECONNREFUSED':
          return `connexion refusée${at} : rien n’y écoute`;
        case 'ECONNRESET':
          return `connexion coupée par l’autre côté${at}`;
        case 'ETIMEDOUT':
          return `pas de réponse à temps${at}`;
        case 'ENOTFOUND':
        case 'EAI_AGAIN':
          return `nom d’hôte inconnu${at}`;
        case 'EHOSTUNREACH':
        case 'ENETUNREACH':
          return `hôte injoignable${at}`;
        default:
          return `erreur système ${code}${at}`;
      }
    },
  },
  keyFile: {
    cannotRead: (option: string, value: string, why: string) =>
      `${option} : « ${value} » n’est ni 64 chiffres hexadécimaux ni un fichier de clé lisible (${why})`,
    notKey: (option: string, file: string) =>
      `${option} : ${file} n’est pas un fichier de clé : 64 chiffres hexadécimaux, ou JSON {"seed_hex": "…"} ou {"public_key_hex": "…"}`,
    noField: (option: string, file: string) =>
      `${option} : ${file} : donner seed_hex ou public_key_hex (public_hex), 64 chiffres hexadécimaux`,
    needSeed: (option: string, file: string) =>
      `${option} : ${file} : il faut la graine privée (seed_hex ou 64 chiffres hexadécimaux), pas une clé publique`,
  },
  keys: {
    keyId: (path: string) => `--key : ${path} : key_id doit être un entier de 0 à 255`,
    seedHex: (path: string) =>
      `--key : ${path} : seed_hex doit compter 64 chiffres hexadécimaux (graine privée Ed25519 de 32 octets)`,
    testKey: 'attention : tickets signés avec la clé de TEST (id 0), refusés par un validateur de production',
    refused: (where: string, why: string) =>
      `${where} : clé publique refusée par l’appareil (${KEY_PROBLEMS[why] ?? why})`,
    conflict: (id: number) => `--key : deux clés différentes pour l’identifiant de clé ${id}`,
  },
  check: {
    empty: 'aucun code à vérifier : donner les codes en arguments, ou un par ligne sur l’entrée standard',
    emptyArg: 'code vide : donner le code lui-même (entre guillemets s’il contient des espaces)',
    quote: (n: number) =>
      `conseil : un code a été donné en ${n} arguments séparés (coupé à ses espaces) ; le mettre entre guillemets : saphir check 'SPH1:…'`,
  },
  gen: {
    needBlock: '--emission et --block sont obligatoires',
    fullExcludes: '--full exclut --from/--count',
    fullOrRange: 'donner --full, ou --from N et --count K',
  },
  audit: {
    oneFile: "un FICHIER au plus (ou - pour l'entrée standard)",
    cannotRead: (file: string, why: string) => `lecture impossible de ${file} : ${why}`,
    summary: (l: string, g: string, i: string, b: string) =>
      `Audit : ${l} lignes, ${g} codes authentiques, ${i} non valides, ${b} lignes vides`,
    block: (e: number, b: number) => `Émission ${e}, bloc ${b}`,
    tickets: (d: string, dup: string, m: string) =>
      `  tickets distincts : ${d} sur 3 000 000 — en double : ${dup} — manquants : ${m}`,
    header: ['lot', 'attendu', 'trouvé'],
    losing: 'perdant',
    dupLine: (line: number, n: number) => `    ligne ${line} : ticket n° ${n} déjà vu`,
    missingRange: (a: number, b: number) => (a === b ? `    n° ${a}` : `    n° ${a} à ${b}`),
    missingTitle: '  numéros manquants (premiers) :',
    dupTitle: '  doublons (premiers) :',
    invalidTitle: (n: string) => `Codes non valides : ${n}`,
    invalidLine: (line: number, why: string, id: string) => `  ligne ${line} : ${why}${id}`,
    byReason: (why: string, n: string) => `  ${why} : ${n}`,
    ok: 'CONFORME',
    notOk: 'NON CONFORME',
    result: 'Résultat',
    noBlock: 'aucun code authentique : aucun bloc à vérifier',
    colon: ' :',
    lineTooLong: (max: number) => `une ligne de plus de ${max} octets`,
  },
  drop: {
    timeout: 'code incomplet (délai dépassé)',
    'too-long': 'code trop long',
    noise: 'code coupé par du bruit',
    'bad-report': 'rapport HID invalide',
    overflow: "codes perdus : la file d'attente du décodeur a débordé",
  },
  decode: {
    source: (list: string) => `--source vaut ${list}`,
    layout: '--layout vaut us, fr ou auto',
    layoutKeyboard: '--layout ne vaut que pour --source hid-keyboard',
    rawImage: '--width/--height/--format ne valent que pour --source image',
    format: '--format vaut y8 ou rgba',
    noFile: 'aucun FICHIER de capture donné',
    read: (f: string, m: string) => `${f} : lecture impossible : ${m}`,
    notHex: (w: string) => `« ${w} » n’est pas un octet hexadécimal`,
    tooLong: (n: number) => `plus de ${n} octets`,
    line: (f: string, n: number, m: string) => `${f}:${n} : ligne ignorée : ${m}`,
    none: (f: string) => `${f} : aucun code`,
    dropped: (f: string, why: string, partial: string) => `${f} : ${why}${partial ? ` « ${partial} »` : ''}`,
    lost: (f: string, why: string, n: number) => `${f} : ${why} (${n})`,
    png: (f: string) => `${f} : PNG illisible (abîmé, ou pas un PNG)`,
    raw: (f: string, n: number, want: number) => `${f} : ${n} octets, ${want} attendus pour ce format d'image`,
    tooLarge: (f: string, kind: string, w: number, h: number, max: number) =>
      `${f} : ${kind} de ${w}×${h} pixels, plus que les ${max} millions de pixels décodés`,
    jpeg: (f: string) => `${f} : les images JPEG ne sont pas décodées ; la convertir en PNG`,
    notImage: (f: string) => `${f} : ni PNG ni JPEG (pour des pixels bruts : --width/--height/--format)`,
  },
  scan: {
    one: 'donner soit --hid VID:PID|CHEMIN, soit --serial CHEMIN',
    serialOnly: '--baud et --ack ne valent que pour --serial',
    hidOnly: '--mode et --layout ne valent que pour --hid',
    hidSpec: (opt: string, v: string) =>
      `${opt} attend VID:PID (identifiants hexadécimaux, ex. 0c2e:0b61) ou un chemin (/dev/hidraw0), pas « ${v} »`,
    mode: '--mode vaut keyboard ou pos',
    layout: '--layout vaut us, fr ou auto',
    ready: (what: string) => `prêt : scannez un ticket (${what}) — Ctrl+C pour arrêter`,
    drop: {
      timeout: 'code incomplet, rescanner',
      'too-long': 'code trop long, rescanner',
      noise: 'code brouillé, rescanner',
      'bad-report': 'lecture HID perturbée, rescanner',
      overflow: 'codes arrivés plus vite que lus : rescanner les derniers tickets',
    },
    unplugged: (d: string) => `scanner débranché (${d}) : en attente de son retour…`,
    reopened: (d: string) => `scanner rebranché (${d})`,
    error: (d: string) => `erreur du scanner : ${d}`,
  },
  hid: {
    libusb: (d: string) =>
      `node-hid ne peut pas démarrer : libusb manque (${d}). L'installer : sudo apt-get install libusb-1.0-0`,
    libudev: (d: string) =>
      `node-hid ne peut pas démarrer : libudev manque (${d}). L'installer : sudo apt-get install libudev1`,
    load: (d: string) => `node-hid ne peut pas démarrer : ${d} (réinstaller avec npm ci)`,
    notFound: (id: string, d: string) => `aucun périphérique HID ${id} ; branchés : ${d}`,
    permission: (id: string, d: string, rule: string) =>
      `accès refusé à ${id} (${d}). Ajouter cette règle udev dans /etc/udev/rules.d/70-saphir-scanner.rules :\n  ${rule}\n` +
      `puis : sudo udevadm control --reload-rules && sudo udevadm trigger (et rebrancher le scanner)`,
    keyboardOwned: (id: string, d: string) =>
      `le système garde pour lui l'interface clavier de ${id} (${d}). Passer le scanner en mode HID POS ` +
      `(saphir scan --hid ${id} --mode pos) ou en mode série (saphir scan --serial CHEMIN)`,
    open: (id: string, d: string) => `impossible d'ouvrir ${id} : ${d}`,
  },
  serial: {
    open: (path: string, d: string) => `impossible d'ouvrir ${path} : ${d}`,
  },
  image: {
    usage: 'donner la sous-commande et le fichier : saphir image inspect FICHIER',
    cannotRead: (file: string, m: string) => `lecture impossible de ${file} : ${m}`,
    invalid: 'image NON VALIDE',
    thisBoard: ' (terminal SAPHIR)',
    otherBoard: ' (autre carte)',
    signer: {
      dev: 'clé de développement publiée',
      given: 'clé donnée (--key)',
      other: 'une autre clé',
      unknown: 'clé non indiquée',
    },
    file: 'Fichier',
    version: 'Version',
    board: 'Carte',
    counter: 'Compteur de sécurité',
    bundle: 'Bundle',
    sha: 'SHA-256',
    signature: 'Signature',
    bytes: (n: number) => `${n} octets`,
    fileSize: (file: string, n: number) => `${file} (${n} octets)`,
    hashOk: 'conforme',
    hashBad: 'NON CONFORME',
    sigOk: 'valide',
    sigBad: 'NON VALIDE',
    sigUnchecked: 'non vérifiée',
    manifest: 'Manifeste',
    manifestState: {
      valid: 'signé (en-tête + SHA-256) : le port de service l’accepte',
      absent: 'aucun (format d’avant le 4 déc. 2026) : démarre, mais le port de service la refuse',
      invalid: 'signature NON VALIDE : le port de service la refuse',
    },
    colon: ' :',
    intact: 'Image intègre et signée.',
    detail: (d: string) => frImageDetail(d),
  },
  demo: {
    title: 'SAPHIR 250 000 € — démonstration du validateur (simulateur, firmware réel en QuickJS)',
    name: 'démonstration du validateur',
    building: 'Construction du firmware…',
    summary: (name: string) => `Résumé — ${name}`,
    scans: (n: number, outcomes: string) => `  ${n} tickets scannés : ${outcomes}`,
    outcomes: (w: number, l: number, r: number) => `${w} gagnant(s), ${l} perdant(s), ${r} refusé(s)`,
    paid: (n: number, total: string) => `${n} paiement(s) au journal des paiements de l’appareil, ${total}`,
    mode: (m: string) =>
      m === 'developer'
        ? 'développement : le firmware de ce dépôt (firmware/dist), sans image signée'
        : m.replace(/^image slot (\w) v/, 'image, emplacement $1, v'),
    firmware: (mode: string, hash: string) => `firmware : ${mode} ; empreinte SHA-256 ${hash.slice(0, 16)}…`,
    ok: 'Démonstration réussie.',
    failed: 'La démonstration a échoué.',
  },
  service: {
    refusal: {
      malformed: 'image tronquée ou mal formée',
      hash: 'image corrompue (SHA-256 faux)',
      signature: 'signature refusée (pas la clé du firmware)',
      board: "image pour un autre modèle d'appareil",
      rollback: 'version plus ancienne que le compteur de sécurité de l’appareil (anti-retour)',
      'too-large': 'image trop grande pour un emplacement',
      busy: "l'image en cours n'est pas encore confirmée",
      flash: "erreur d'écriture de la mémoire flash",
      incomplete: 'transfert incomplet',
      'no-session': 'aucune mise à jour en cours',
      manifest: 'image sans manifeste signé (construite avant le 4 déc. 2026) : la reconstruire et la signer à nouveau',
    },
    noPort: (p: string) => `port série introuvable : ${p}`,
    busy: (p: string) => `port série occupé (déjà ouvert par un autre programme) : ${p}`,
    openFailed: (p: string, m: string) => `impossible d'ouvrir ${p} : ${m}`,
    noAnswer: (baud: string) =>
      `pas de réponse de l'appareil à ${baud} bauds (câble, appareil éteint ou autre vitesse ?)`,
    linkLost: (closed: boolean) =>
      closed
        ? 'le port série s’est fermé (câble débranché, simulateur arrêté ?) : relancez la commande, le transfert reprendra'
        : 'liaison interrompue : relancez la commande, le transfert reprendra',
    // The device's own detail is English: the French sentences give the reason without it.
    refused: (why: string) => `refusée par l'appareil : ${why}`,
    verify: () => 'vérification échouée : l’empreinte annoncée par l’appareil n’est pas celle de l’image',
    protocol: () => 'erreur de protocole : réponse de l’appareil mal formée (SAPHIR_DEBUG=1 pour le détail)',
    port: '--port CHEMIN est obligatoire',
    auth: () => 'accès de service refusé : l’appareil ne reconnaît pas cette clé de technicien (--tech-key)',
    devTechKey: (command: string) =>
      `saphir ${command}: attention : clé de technicien de DÉVELOPPEMENT publiée (--tech-key FICHIER pour la vôtre) ; un appareil de production la refuse`,
  },
  flash: {
    oneImage: 'un seul fichier IMAGE attendu',
    cannotRead: (file: string, m: string) => `lecture impossible de ${file} : ${m}`,
    newer: 'plus récente',
    older: 'plus ancienne',
    same: 'identique',
    device: 'Appareil',
    image: 'Image',
    deviceId: 'Identifiant',
    board: 'Carte',
    version: 'Version',
    slotOf: (slot: string) => `emplacement ${slot}`,
    unconfirmed: ', non confirmée',
    none: 'aucune',
    counter: 'Compteur de sécurité',
    slot: (slot: string) => `Emplacement ${slot}`,
    empty: 'vide',
    invalid: 'invalide',
    rate: 'Ko/s',
    left: 'reste',
    refused: (why: string) => `refusé : ${why}`,
    nothingWritten: 'Rien n’a été écrit.',
    alreadyRuns: 'Cette image tourne déjà sur l’appareil, confirmée : rien à faire (--force pour la réinstaller).',
    dryRun: 'Essai à blanc : l’image serait acceptée. Rien n’a été écrit.',
    waiting: (slot: string) => `Cette image est déjà écrite dans l’emplacement ${slot}, en attente de redémarrage.`,
    resumed: (n: number) => `Reprise : ${n} octets étaient déjà sur l’appareil.`,
    written: (v: string, slot: string, hash: string) =>
      `Image ${v} écrite dans l’emplacement ${slot} et vérifiée (SHA-256 ${hash}…).`,
    nextReset: 'Elle démarrera en mode test au prochain redémarrage.',
    didNotStart: (what: string) => `après redémarrage l’appareil exécute ${what} : la nouvelle image n’a pas démarré`,
    noImage: 'aucune image',
    testMode: (v: string) =>
      `Redémarré sur ${v} en mode test : l’appareil la confirmera après son autotest (sinon retour à l’ancienne au prochain redémarrage).`,
    confirmed: (v: string) => `Redémarré sur ${v}, confirmée.`,
    devKeyOnProduction: 'image signée avec la clé de DÉVELOPPEMENT : un appareil de production la refuse',
    sameNumber: 'même numéro, autre image',
    noPortMatches: (glob: string) => `aucun port ne correspond à ${glob}`,
    /** The outcome column of the several-device summary. */
    outcome: {
      upToDate: 'déjà à jour',
      dryRun: 'essai à blanc',
      restartPending: 'écrite, redémarrage à faire',
      testMode: 'ok, mode test',
      confirmed: 'ok, confirmée',
    },
    summary: ['Appareil', 'Port', 'Avant → après', 'Résultat', 'Durée'],
    portOrPorts: '--port CHEMIN (ou --ports MOTIF) est obligatoire',
  },
  notice: {
    cannotRead: (path: string, why: string) => `impossible de lire ${path} : ${why}`,
    malformed: (path: string, why: string) => `${path} n’est pas un avis : ${frNoticeProblem(why)}`,
    invalid: (why: string) => `l’avis serait invalide : ${frNoticeProblem(why)}`,
    needVersion: 'donnez --version N (ou --from FICHIER : sa version + 1)',
    emission: (arg: string) => `--emission ${arg} : pas NUMÉRO:NOM:EN_VENTE[:CLÔTURE] (dates AAAA-MM-JJ)`,
    close: (arg: string) => `--close ${arg} : pas NUMÉRO:AAAA-MM-JJ d’une émission de l’avis`,
    created: (v: number, file: string) => `avis version ${v} écrit dans ${file} (non signé : saphir notice sign)`,
    signed: (v: number, file: string, pub: string) =>
      `avis version ${v} signé dans ${file} (clé d’opérateur ${pub.slice(0, 16)}…)`,
    devKey:
      'ATTENTION : signé avec la clé d’opérateur de DÉVELOPPEMENT publiée (tout le monde peut signer avec ; les appareils de production la refusent) : --operator-key pour une vraie flotte',
    version: 'Version de l’avis',
    limits: (payout: number, offline: number, id: number) =>
      `Limites : paiement ${payout} €, hors ligne ${offline} €, pièce d’identité dès ${id} €`,
    cols: ['Émission', 'Nom', 'En vente depuis', 'Clôture', 'Limite de paiement'],
    onSale: 'en vente',
    noDeadline: 'pas encore',
    holidays: 'Jours fériés en plus :',
    departmentHolidays: (code: string) => `Jours fériés du département ${code} :`,
    deadlinesFor: (dep: string) =>
      dep
        ? `Limites de paiement pour un appareil du département ${dep}`
        : 'Limites de paiement pour un appareil sans jours fériés de département (--department D : ceux de D)',
    department: (arg: string) => `${arg} : pas un département (01…95, 2A, 2B, 971…976)`,
    unsigned: 'Signature : aucune (saphir notice sign)',
    verifies: (pub: string, dev: boolean) =>
      `Signature : valide, clé d’opérateur ${pub.slice(0, 16)}…${dev ? ' (la clé de DÉVELOPPEMENT publiée)' : ''}`,
    noVerify: (pub: string, dev: boolean) =>
      `Signature : NE CORRESPOND PAS à la clé d’opérateur ${pub.slice(0, 16)}…${dev ? ' (la clé de développement publiée ; --operator-key PUB)' : ''}`,
    pushUnsigned: (path: string) => `${path} n’est pas signé : un appareil le refuse (saphir notice sign)`,
    refused: (why: string, detail: string) => `l’appareil a refusé l’avis : ${why} (${frNoticeProblem(detail)})`,
    reasons: {
      older: 'pas plus récent que l’avis qu’il a',
      unsigned: 'non signé',
      signature: 'pas signé par sa clé d’opérateur',
      'no-key': 'l’appareil n’a pas de clé d’opérateur',
      malformed: 'mal formé',
      silent: 'l’appareil ne répond pas',
      auth: 'accès de service refusé',
    } as Record<string, string>,
    pushed: (v: number, previous: number) =>
      `avis version ${v} enregistré sur l’appareil (il avait ${previous || 'aucun'})`,
    rebooted: 'appareil redémarré : l’avis s’applique maintenant',
    atNextStart: 'l’avis s’appliquera au prochain démarrage de l’appareil',
  },
  device: {
    usage: 'donner la sous-commande : saphir device info --port CHEMIN',
    deviceId: 'Identifiant',
    board: 'Carte',
    running: 'En cours',
    slotOf: (slot: string) => `emplacement ${slot}`,
    testMode: ', mode test, non confirmée',
    noImage: 'aucune image valide',
    counter: 'Compteur de sécurité',
    counterOf: (n: number) => `compteur ${n}`,
    bytes: (n: number) => `${n} octets`,
    confirmed: ', confirmée',
    toTest: ', à tester',
    empty: 'vide',
    invalid: (d: string) => `invalide (${d})`,
    slot: (slot: string) => `Emplacement ${slot}`,
    interrupted: 'Transfert interrompu',
    received: (got: number, size: number, hash: string) => `${got} / ${size} octets (${hash}…)`,
    firmwareKey: 'Clé firmware (SHA-256)',
    techKey: 'Clé technicien (SHA-256)',
    kind: 'Type',
    production: 'appareil de PRODUCTION',
    development: (provisioned: boolean) =>
      `appareil de développement (${provisioned ? 'clés provisionnées' : 'clés de développement publiées'})`,
    trusted: 'Clés de confiance',
    trustUnknown: 'inconnues (provisionnement illisible ?)',
    notice: 'Avis de l’opérateur',
    noNotice: 'aucun',
    access: 'Accès de service',
    granted: 'accordé (clé de technicien reconnue)',
    refused: (why: string) => `refusé : ${why}`,
  },
  ledger: {
    usage: 'donner la sous-commande : saphir ledger export --port CHEMIN',
    format: '--format vaut csv ou json',
    exported: (n: number) => `${n} paiement(s) exporté(s)`,
    toUrl: '--to prend l’URL http://hôte:port du registre central',
    noRegistry: (url: string, why: string) =>
      `le registre central ${url} n’a pas répondu (${why}) : rien n’a été marqué transmis`,
    registryRefused: (error: string, detail: string) => `le registre central a refusé le lot : ${error} ${detail}`,
    countMismatch: (url: string, sent: number, got: number) =>
      `${url} a répondu ${got} résultat(s) pour ${sent} paiement(s) envoyé(s) : pas une réponse du registre central, rien n’a été marqué transmis`,
    notMatched: (url: string, n: number, total: number) =>
      `${n} résultat(s) sur ${total} de ${url} ne portent pas sur le ticket envoyé : ceux-là restent sur l’appareil pour un nouvel envoi (les autres ont été marqués transmis)`,
    pushed: (n: number, conflicts: number, invalid: number) =>
      `${n} paiement(s) hors ligne transmis au registre central, ${conflicts} conflit(s), ${invalid} refusé(s)`,
    oneOf: '--report, --journal et --to vont un à la fois',
    noJournal: 'cet appareil n’a pas de journal des vérifications (firmware d’avant le comptoir) : pas de rapport',
    journalExported: (n: number) => `${n} entrée(s) du journal exportée(s)`,
    reportKind: '--report vaut x (la période en cours, par défaut) ou z (la période close par le dernier Z)',
    noZ: 'aucun rapport Z sur cet appareil : pas de période close (--report x donne la période en cours)',
    report: (r: {
      z: boolean;
      from: string;
      to: string;
      payments: number;
      total: string;
      today: number;
      todayTotal: string;
      unpaid: number;
      unpaidTotal: string;
      centre: number;
      scans: number;
      refused: string;
    }) =>
      [
        r.z
          ? `Rapport Z : ${r.from} → ${r.to} (la période close par le dernier Z)`
          : `Période : ${r.from} → ${r.to} (depuis le dernier rapport Z)`,
        `Paiements : ${r.payments}, ${r.total} (aujourd’hui ${r.today}, ${r.todayTotal})`,
        `Gains affichés non payés : ${r.unpaid}, ${r.unpaidTotal}`,
        `Envoyés en centre de paiement : ${r.centre}`,
        `Tickets lus : ${r.scans}`,
        `Refus : ${r.refused || 'aucun'}`,
      ].join('\n'),
    sinceStart: 'la mise en service',
  },
  sim: {
    detail: (d: string) => frDetail(d),
    registryUrl: '--registry attend une URL http://hôte:port ou embedded',
    deviceId: (v: string) => `--device-id '${v}' : 1 à 16 caractères ASCII imprimables, sans espace`,
    department: (v: string) => `--department ${v} : pas un département (01…95, 2A, 2B, 971…976)`,
    deviceIdIs: (id: string) => `identifiant de l'appareil : ${id}`,
    variant: '--variant vaut quickjs, quickjs-ng ou xs',
    xsMissing: (reason: 'not-installed' | 'not-built' | 'broken', install: string) =>
      `le moteur XS n’est pas disponible : ${
        reason === 'not-installed'
          ? '@agoric/xsnap n’est pas installé (npm l’omet quand la construction de XS échoue, par exemple sans compilateur C)'
          : reason === 'not-built'
            ? 'le processus xsnap de @agoric/xsnap n’a pas été construit'
            : 'le processus xsnap de @agoric/xsnap ne démarre pas'
      } ; installez un compilateur C puis le paquet : ${install}`,
    hidMode: '--hid-mode vaut keyboard ou pos',
    unexpected: (a: string) => `argument en trop « ${a} » (les scénarios suivent --scenario)`,
    noFile: (f: string) => `${f} : fichier introuvable`,
    scenarioTooLarge: (f: string, max: number) =>
      `${f} : un fichier de scénario fait au plus ${max} octets ; rien n’est exécuté`,
    servicePort: (p: string) => `port de service : ${p}`,
    flashFile: (f: string, size: number) =>
      `--flash ${f} : pas une puce enregistrée (un fichier de ${size} octets écrit par saphir sim) ; donner un nouveau nom de fichier pour une puce neuve`,
    oneMode: (modes: string) => `un seul mode à la fois : ${modes}`,
    productionTechKey:
      'un appareil de production (--firmware-key autre que la clé de développement) a besoin de sa propre clé de technicien : --tech-key HEX|FICHIER (celle de développement est publique)',
    noSocat: 'socat n’est pas installé : il crée le pseudo-terminal. L’installer : sudo apt-get install socat',
    help: (kinds: string, maxWait: string) => `Commandes :
  SPH1:…            scanner ce code (collé ou tapé)
  ticket PRIX       générer un nouveau ticket de ce gain (0 = perdant) et le scanner, ex. « ticket 150 »
  faux PRIX         un ticket de ce gain signé avec une autre clé (contrefaçon)
  rescanner         scanner de nouveau le dernier code
  via LECTEUR       choisir le lecteur : ${kinds}
  ok | c | 0…9      appuyer sur une touche
  attendre DURÉE    avancer le temps simulé (ms, s, min, h, d ; au plus ${maxWait}), ex. « attendre 10s »
  reboot | coupure | boot     redémarrer, couper le courant, rallumer
  journal           le journal des paiements de l’appareil
  réseau coupé|rétabli        couper ou rétablir le réseau (avec --registry)
  capture FICHIER.png         l’écran en PNG
  quitter`,
    ready: (via: string) => `Simulateur prêt (lecteur : ${via}). « aide » pour les commandes.`,
    unknown: (s: string) => `commande inconnue : ${s} (« aide »)`,
    ledger: (n: number) => `${n} paiement(s) au journal des paiements`,
    via: (v: string) => `lecteur : ${v}`,
    viaUnknown: (v: string, kinds: string) => `pas de lecteur « ${v} » : ${kinds} (le lecteur reste le même)`,
    ticketSent: (id: string, prize: string, via: string, code: string) =>
      `→ ticket ${id} ${prize} via ${via} : ${code}`,
    losing: 'perdant',
    rescan: (via: string, code: string) => `→ de nouveau via ${via} : ${code}`,
    nothingToRescan: 'rien à scanner de nouveau : scannez d’abord un code ou un « ticket »',
    waitNeeds: (max: string) =>
      `attendre demande une durée : un nombre et ms, s, min, h ou d, au plus ${max}, ex. « attendre 10s »`,
    waitBad: (v: string, max: string) =>
      `« ${v} » n’est pas une durée : un nombre et ms, s, min, h ou d, au plus ${max}, ex. « attendre 10s »`,
    waitTooLong: (v: string, max: string) =>
      `${v} dépasse le maximum d’une attente, ${max} (chaque minute simulée exécute le firmware, une journée prend des dizaines de secondes) : attendre en plusieurs fois`,
    waitProgress: (done: string, all: string) => `… ${done} sur ${all} simulés`,
    waited: (d: string, stopped: boolean) => (stopped ? `attente arrêtée après ${d}` : `${d} simulés`),
    networkWord: (v: string) => `« réseau coupé » ou « réseau rétabli », pas « ${v} »`,
    alreadyOn: 'appareil déjà allumé (« reboot » pour le redémarrer)',
    badPrize: 'gain inconnu du barème (0, 5, 10, 15, 30, 150, 500, 2500, 25000, 250000)',
    off: 'appareil éteint (« boot » pour rallumer)',
    bridged: (what: string) => `lecteur réel branché : ${what}`,
    bridgeError: (what: string, why: string) => `lecteur ${what} : ${why}`,
    serialWord: 'série',
    bye: 'au revoir',
    commandFailed: (cmd: string, why: string) => `${cmd} : échec (${why}) ; l’appareil continue`,
    saved: (f: string) => `écrit : ${f}`,
    pass: 'ok',
    fail: 'ÉCHEC',
    line: 'ligne',
    display: 'Écran au moment de l’échec :',
    scenarioOk: (n: number, virtual: string, wallMs: string) =>
      `réussi : ${n} étapes, ${virtual} simulées en ${wallMs} ms`,
    scenarioFail: (line: number) => `échoué à la ligne ${line}`,
    total: (ok: number, all: number) => `${ok}/${all} scénarios réussis`,
    noNetwork: 'pas de réseau : lancez avec --registry URL|embedded',
    network: (up: boolean) => (up ? 'réseau rétabli' : 'réseau coupé'),
    noPort: (why: string) => `port de service impossible : ${why}`,
    pathTaken: (path: string) =>
      `${path} existe déjà et n’est pas un lien de pseudo-terminal : choisissez un autre chemin (rien n’y a été touché)`,
    badPath: (path: string, c: string) =>
      `${JSON.stringify(path)} ne peut pas être un chemin --pty : socat lirait ${JSON.stringify(c)} comme une partie de son adresse (lettres, chiffres, . _ - + / seulement ; rien n’a été créé)`,
    socatFailed: (why: string) => `socat n’a pas pu créer le port : ${why}`,
    socatEnded: (why: string) => `socat s’est arrêté (${why})`,
    deviceKeysProblem: (why: string) => `clés de l’appareil : ${frDetail(why)}`,
    devDeviceKey: ' ; clé d’appareil : la clé de DÉVELOPPEMENT publiée (registre central de développement seulement)',
    ownDeviceKey: (pub: string) => ` ; clé d’appareil ${pub} (saphir registry devices add ID ${pub})`,
    runDeviceKey: (pub: string) =>
      ` ; clé d’appareil de ce lancement ${pub} (une nouvelle à chaque lancement sur une puce vierge ; l’appareil l’inscrit au registre central de développement au démarrage)`,
    keyEnrolled: (id: string, replaced: boolean) =>
      `clé de l’appareil ${id} inscrite au registre central de développement` +
      (replaced ? ' (elle remplace celle d’un lancement précédent sous cet identifiant)' : ''),
    keyNotEnrolled: (why: string) =>
      `clé de l’appareil non inscrite au registre central (${why}) : il refusera ses demandes, l’appareil paiera hors ligne, dans sa limite hors ligne`,
    keyProduction: (id: string, pub: string) =>
      `le registre central est de production : il n’entend que les appareils inscrits (saphir registry devices add ${id} ${pub})`,
    devKeys:
      'appareil de DÉVELOPPEMENT : il fait confiance aux clés de développement publiées (--firmware-key, --tech-key pour en provisionner)',
    provisioned: (production: boolean, fw: string, tech: string) =>
      `${production ? 'appareil de PRODUCTION' : 'appareil de développement'} provisionné : clé du firmware SHA-256 ${fw}, clé du technicien SHA-256 ${tech}`,
    registryAnswers: (url: string) => `registre central : ${url} (il répond)`,
    registryDown: (url: string, why: string) =>
      `le registre central ${url} ne répond pas (${why}) : l’appareil paiera hors ligne, dans sa limite hors ligne, tant qu’il ne répond pas`,
    noAnswerIn: (s: number) => `pas de réponse en ${s} s`,
    registryByUrl: 'expect-registry a besoin de --registry embedded',
    embeddedRegistry: (url: string) => `registre central intégré : ${url} (PGlite en mémoire)`,
    powerCut: 'courant coupé',
    provisionRefused: (file: string, why: string) => `--provision ${file} : rien programmé (${why})`,
    provisionNotBlank: 'la puce contient déjà une autre image ; la programmation en usine demande une puce vierge',
    provisionTooLarge: (n: number) => `plus grand qu'un emplacement (${n} octets)`,
    poweredOn: (mode: string) => `allumé : ${mode}`,
    restarted: (mode: string) => `redémarré : ${mode}`,
    payments: (n: number) => `${n} paiement(s)`,
    ptyUnknown: (w: string) => `commande inconnue : ${w} (coupure, « boot », « reboot », journal, quitter)`,
    web: (url: string) => `Simulateur web : ${url}\nCtrl-C pour arrêter.`,
    noBrowser: (cmd: string, url: string) => `impossible d’ouvrir le navigateur (${cmd}) ; ouvrez ${url}`,
  },
  build: {
    missing: (f: string) => `${f} absent : construction du firmware (npm run build)…`,
    newer: (f: string) => `${f} a changé depuis la dernière construction : reconstruction du firmware (npm run build)…`,
  },
  step: {
    powerOff: '(hors tension)',
    deviceOff: "l'appareil est éteint (ajoutez une étape boot)",
    scanner: (m: string) => `lecteur : ${m}`,
    nowhere: (via: string) => `le firmware n'a ouvert aucune entrée ${via} : le scan n'est arrivé nulle part`,
    display: (what: string, row: number, ms: number) => `attendu ${what}${row ? ` à la ligne ${row}` : ''} en ${ms} ms`,
    beep: (beep: string, ms: number, heard: string) =>
      `attendu le bip ${beep} en ${ms} ms ; entendu : ${heard || 'rien'}`,
    led: (want: string, is: string) => `attendu la LED ${want}, elle est ${is}`,
    words: {
      losing: 'perdant',
      forged: 'contrefait',
      pressAt: (key: string, ms: number) => `appui sur ${key} à ${ms} ms`,
      onLine: (n: number) => `à la ligne ${n}`,
      maxFailures: (n: number) => `échecs au plus ${n}`,
      confirmed: (n: number) => `${n} confirmé(s)`,
      failed: (n: number) => `${n} en échec`,
      by: (d: string) => `par ${d}`,
      viaRegistry: 'via le registre central',
      inline: 'donné dans le scénario',
      refused: 'refusé',
      resumed: 'repris',
      cutAt: (n: number) => `coupure à l’opération flash ${n}`,
      cloneOf: (d: string) => `clone de ${d}`,
    },
    campaignWant: (want: string, state: string, phase: number, confirmed: number, failed: number) =>
      `attendu ${want} ; elle est ${state}, phase ${phase}, ${confirmed} confirmé(s), ${failed} en échec`,
    ledColor: (c: string) => ({ green: 'verte', red: 'rouge', off: 'éteinte' })[c] ?? c,
    ledger: (want: string, n: number, list: string) =>
      `attendu le journal des paiements ${want} ; il contient ${n}${list ? ' : ' + list : ''}`,
    screenshot: (file: string, why: string) => `capture d'écran impossible dans ${file} : ${why}`,
    noSnapshot: 'rollback sans snapshot avant sur cet appareil',
    needsRegistry: 'ce scénario a besoin d’un registre central (--registry URL|embedded)',
    campaign: (detail: string) => `campagne : ${detail}`,
    noPrinter: 'cet appareil n’a pas d’imprimante de reçus',
    receipt: (text: string, ms: number, printed: string) =>
      `attendu un reçu contenant « ${text} » dans les ${ms} ms ; imprimé : ${printed || 'rien'}`,
    receiptNone: (n: number, first: string) => `attendu aucun reçu ; ${n} imprimé(s) : ${first}`,
    notice: (refused: boolean, reason: string, detail: string) =>
      refused
        ? 'l’appareil devait refuser l’avis ; il l’a pris'
        : `l’appareil a refusé l’avis : ${reason} (${frNoticeProblem(detail)})`,
    noticeHeld: (want: number, is: number) =>
      `attendu l’avis n° ${want || 'aucun'} sur la flash de l’appareil ; elle porte ${is ? `l’avis n° ${is}` : 'aucun avis'}`,
    registryControl:
      'une étape `registry: down|up` arrête et relance un registre central démarré par le simulateur (--registry embedded, ou un scénario de flotte), pas un registre donné par son URL',
    registry: (want: string, n: number, held: string, conflicts: number) =>
      `attendu au registre central ${want} ; il tient ${n} ticket(s)${held ? ' : ' + held : ''}, ${conflicts} conflit(s)`,
    provisionOn: 'provision : l’appareil doit être éteint',
    noImage: (mode: string) => `attendu une image signée en marche ; mode ${mode || 'éteint'}`,
    imageSlot: (want: string, is: string) =>
      `attendu l’image de l’emplacement ${want}, c’est celle de l’emplacement ${is}`,
    imageConfirmed: (confirmed: boolean) => `attendu une image ${confirmed ? 'confirmée' : 'à l’essai'}`,
  },
  web: {
    off: 'l’appareil est éteint (« Allumer » pour le rallumer)',
    optionSyntax: (part: string) => `option « ${part} » : écrire nom=valeur`,
    chipSize: (n: number, size: number) => `fichier de puce : ${n} octets, une puce en a ${size} ; rien n’a changé`,
    storage: (why: string) => `IndexedDB : ${why}`,
    noStorage: (why: string) => `IndexedDB : ${why} (la puce ne survivra pas à un rechargement)`,
    stopped: 'arrêté',
    notLoaded: 'le firmware n’est pas encore chargé',
    mode: (m: string) => frWebMode(m),
    log: (line: string) => frLog(line),
    fetchFailed: (file: string, status: number) =>
      `impossible de charger ${file} : ${status ? `le serveur répond HTTP ${status}` : 'le serveur ne répond pas'} (saphir sim --web tourne-t-il encore ?)`,
    browser: (name: string) => frBrowser(name),
    // hw-sim/sim.ts's power events: 'boot (MODE)' and 'off (WHY)'.
    power: (what: string) =>
      what
        .replace(/^boot \((.*)\)$/, (_, m: string) => `allumé (${frWebMode(m)})`)
        .replace(
          /^off \((.*)\)$/,
          (_, why: string) => `éteint (${POWER_OFF[why] ?? why.replace(/^reset: /, 'réinitialisation : ')})`,
        ),
  },
  scenario: {
    invalid: 'scénario invalide :',
    problem: (file: string, line: number, message: string) => `${file}:${line} : ${frScenarioProblem(message)}`,
  },
  ports: {
    none: 'Aucun port série trouvé (branchez l’appareil, ou vérifiez les droits sur /dev).',
    cols: ['Port', 'by-id', 'USB', 'N° de série', 'Appareil', 'Version'],
    noAnswer: 'pas de réponse',
  },
  registry: {
    noticePublished: (v: number, file: string) =>
      `avis version ${v} publié (${file}) : les appareils le reçoivent à leur prochaine synchronisation`,
    noticeRefused: (file: string, why: string) => `${file} non publié : ${why}`,
    noticeLatest: (v: number, at: string) => `dernier avis : version ${v}, publié le ${at}`,
    noNotice: 'aucun avis publié',
    dev: "ATTENTION : flotte de développement — la clé d'appareil publiée est acceptée (enrôlez un appareil ou --production)",
    listening: (url: string, db: string) => `registre central à l'écoute sur ${url} (base : ${db})`,
    added: (id: string) => `appareil ${id} enrôlé`,
    revoked: (id: string) => `appareil ${id} révoqué`,
    notRevoked: (id: string) => `appareil ${id} inconnu ou déjà révoqué`,
    none: 'aucun appareil enrôlé',
    never: 'jamais',
    cols: ['appareil', 'enrôlé le', 'vu le', 'état'],
    active: 'actif',
    revokedWord: 'révoqué',
    conflicts: (n: number) => `conflits : ${n}`,
    totals: (n: number, eur: number) => `paiements : ${n}, total ${eur} €`,
    offline: (n: number) => `${n} hors ligne`,
    perDevice: 'par appareil',
    perDay: 'par jour',
    notSeen: (d: number) => `appareils non vus depuis ${d} jours`,
    regrants: (n: number) =>
      `redemandes (un appareil redemande ou repaie un ticket qu’il détient : réponse perdue, retour en arrière ou clone) : ${n}`,
    released: (n: number) =>
      `réservations libérées (accordées, jamais confirmées pendant la réservation, puis accordées à un autre appareil) : ${n}`,
    releasedLine: (c: Record<string, unknown>, reserved: string, released: string) =>
      `  ticket ${c.emission}/${c.block}/${c.number} : réservé par ${c.device_id} le ${reserved}, libéré pour ${c.to_device_id} le ${released} (si ${c.device_id} l’a payé, sa confirmation apparaît en conflit)`,
    regrantLine: (c: Record<string, unknown>, paid: string, asked: string) =>
      c.kind === 'reserved'
        ? `  ticket ${c.emission}/${c.block}/${c.number} : réservé par ${c.device_id}, accordé de nouveau le ${asked} avant confirmation (réponse perdue, ou payé deux fois : vérifier son journal)`
        : c.kind === 'paid-twice'
          ? `  ticket ${c.emission}/${c.block}/${c.number} : PAYÉ DEUX FOIS par ${c.device_id} (confirmé le ${paid}, deuxième paiement confirmé le ${asked}) : retour en arrière ou clone`
          : `  ticket ${c.emission}/${c.block}/${c.number} : payé par ${c.device_id} le ${paid}, redemandé par lui le ${asked} (refusé)`,
    registryKey: (pub: string, dev: boolean) =>
      dev
        ? `ATTENTION : réponses signées avec la clé de DÉVELOPPEMENT publiée du registre (tout le monde peut les forger) : --registry-key pour une vraie flotte`
        : `réponses signées avec la clé du registre central ${pub}`,
    conflictLine: (c: Record<string, unknown>, first: string, paid: string) =>
      `  ticket ${c.emission}/${c.block}/${c.number} (${c.prize_eur} €) : payé par ${c.first_device_id} le ${first}, puis hors ligne par ${c.device_id} le ${paid}`,
    healthCols: [
      'appareil',
      'vu le',
      'état',
      'version',
      'slot',
      'avis',
      'journal',
      'à envoyer',
      'démarrage',
      'en marche',
      'erreurs',
    ],
    notEnrolled: 'entendu, non enrôlé',
    stale: (days: number) => `MUET (> ${days} j)`,
    uptime: (s: number) =>
      s >= 86400 ? `${Math.floor(s / 86400)} j` : s >= 3600 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 60)} min`,
    campaignCreated: (name: string, version: string, n: number, phases: string) =>
      `campagne ${name} : image ${version} pour ${n} appareil(s), phases ${phases} ; en cours`,
    campaignState: (name: string, state: string) => `campagne ${name} : ${state}`,
    campaignNone: 'aucune campagne',
    campaignHead: (c: {
      name: string;
      version: string;
      state: string;
      phase: number;
      phases: string;
      failures: number;
      max_failures: number;
      device_deadline_ms?: number;
      retries?: number;
    }) =>
      `campagne ${c.name} : image ${c.version}, ${c.state}, phase ${c.phase} sur ${String(c.phases).split(',').length} (${c.phases}), ${c.failures} échec(s) sur ${c.max_failures} admis` +
      (c.device_deadline_ms ? `, délai d’un appareil ${c.device_deadline_ms / 3_600_000} h` : '') +
      (c.retries ? `, ${c.retries} nouvel(s) essai(s) de téléchargement` : ''),
    campaignPhase: (p: number, n: number, states: string) => `  phase ${p} : ${n} appareil(s) : ${states}`,
    campaignDevice: (id: string, state: string, detail: string | null) =>
      `    ${id}  ${state}${detail ? '  ' + detail : ''}`,
    campaignUsage:
      'campaign create IMAGE --name N [--group G] [--phases 1,10,100] [--max-failures K] [--device-deadline HEURES] [--retries N] ; campaign status [NOM] ; campaign pause|resume|abort NOM',
    campaignError: (detail: string) => `campagne : ${frDetail(detail)}`,
    campaignFile: (file: string, why: string) => `impossible de lire l'image ${file} : ${why}`,
    imagesDir: (dir: string) => `--images ${dir} : pas un dossier`,
    groupSet: (id: string, group: string) => `appareil ${id} dans le groupe ${group}`,
    stopping: 'arrêt du registre central',
    testKeys:
      'ATTENTION : la clé de TEST publiée des tickets est acceptée (tout le monde peut signer des tickets avec) : --key et --production pour de vrais tickets',
    ticketKeys: (n: number) => `clé(s) de tickets acceptée(s) : ${n}`,
    bothDb: '--db et --postgres s’excluent',
    noDb: (dir: string) =>
      `pas de base du registre central dans ${dir} : \`saphir registry serve --db ${dir}\` la crée`,
    postgresUrl: '--postgres prend une URL postgres://…',
    since: (v: string) => `--since prend une date AAAA-MM-JJ qui existe, pas « ${v} »`,
    deviceId: (id: string) => `identifiant d’appareil « ${id} » : 1 à 16 caractères ASCII imprimables, sans espace`,
    pubkey: (v: string) =>
      `CLÉ « ${v} » : 64 chiffres hexadécimaux (clé publique Ed25519), ou un fichier qui les contient`,
    already: (id: string) => `appareil ${id} déjà enrôlé`,
    keyOnlyServe:
      '--key, --registry-key, --production, --rate-limit et --reservation-minutes sont des options de registry serve',
    devKeyEnrol: (id: string) =>
      `${id} : c’est la clé d’appareil de DÉVELOPPEMENT publiée (tout le monde peut signer avec) : jamais enrôlée. ` +
      `Donner à l’appareil sa propre clé (un appareil de production en crée une ; saphir sim l’affiche, ou --device-key FICHIER). ` +
      `Un registre de développement accepte la clé publiée sans enrôlement tant qu’aucun appareil n’est enrôlé.`,
    productionNeedsKey:
      '--production demande la clé de production des tickets : --key HEX|FICHIER (un registre de production n’accepte jamais la clé de test publiée)',
    productionNeedsRegistryKey:
      '--production demande la clé du registre central : --registry-key HEX|FICHIER (sa clé de développement publiée laisserait n’importe qui signer ses réponses)',
    testKeyInProduction: (where: string) =>
      `${where} : la clé de TEST publiée des tickets, jamais acceptée avec --production (tout le monde peut signer avec)`,
    dbIsFile: (dir: string) => `--db ${dir} est un fichier : donner le dossier de la base du registre`,
    notDb: (dir: string) =>
      `--db ${dir} n’est pas une base du registre (un dossier qui contient d’autres fichiers) : donner le dossier du registre, ou un dossier nouveau ou vide`,
    cannotOpen: (dir: string, why: string) => `impossible d’ouvrir la base ${dir} : ${why}`,
    locked: (dir: string, pid: number | string, file: string) =>
      `la base ${dir} est utilisée par le processus ${pid} (sans doute « saphir registry serve ») : PGlite est la base d’un seul processus. ` +
      `Arrêter d’abord ce processus ('devices add', 'devices revoke' et 'report' s’y font pendant qu’il est arrêté), ou utiliser PostgreSQL (--postgres URL) pour partager une base entre processus. ` +
      `Si le processus ${pid} n’est pas un registre saphir, supprimer ${file}.`,
  },
  explore: {
    indexOne: '--index rejoue un seul scénario : l’utiliser avec --explore 1',
    devicesFleet: '--devices va avec --fleet',
    attackerFleet: '--attacker va avec --fleet',
    faults: (g: string, known: string) => `--faults : groupe de pannes inconnu « ${g} » (connus : ${known})`,
    faultsFleet: '--faults vaut pour les scénarios à un appareil, pas pour --fleet',
    fleetEngine:
      '--variant, --quickjs-every et --ed25519 valent pour les scénarios à un appareil : la flotte tourne sous QuickJS',
    progress: (done: number, n: number, perS: number, violations: number) =>
      `${done}/${n} programmes, ${perS.toFixed(1)}/s, ${violations} violation(s)`,
    start: (n: number, seed: string, threads: number, fleet: boolean) =>
      `Exploration : ${n} programme(s)${fleet ? ' de flotte' : ''}, graine ${seed}, ${threads === 1 ? 'un fil' : `${threads} fils`} de calcul.`,
    interrupted: (done: number, n: number, seed: string, violations: number) =>
      `Interrompu après ${done} programme(s) sur ${n} (graine ${seed}) : ${violations} violation(s).`,
    summary: (
      schedules: number,
      seed: string,
      operations: number,
      steps: number,
      seconds: number,
      perS: number,
      stepsPerS: number,
      violations: number,
    ) =>
      `${schedules} programmes (graine ${seed}), ${operations} opérations, ${steps} étapes en ${seconds.toFixed(1)} s : ` +
      `${perS.toFixed(1)} programmes/s, ${stepsPerS.toFixed(0)} étapes/s. ${violations} violation(s).`,
    failure: 'invariant',
    variant: '--variant de --explore vaut v8, quickjs, quickjs-ng ou xs',
    ed25519: '--ed25519 de --explore vaut host ou firmware',
    engines: (e: Record<string, number>, ed25519?: 'host' | 'firmware') =>
      `Moteurs : ${Object.entries(e)
        .map(([k, n]) => `${n} sous ${k}${k === 'v8' && ed25519 === 'host' ? ' (Ed25519 par l’hôte)' : ''}`)
        .join(', ')}.`,
    updates: (u: Record<string, number>) =>
      `Mises à jour : ${u.service ?? 0} par le port de service (${u['service-cut'] ?? 0} coupées, ${u['service-resumed'] ?? 0} reprises sur les blocs reçus, ${u['service-installed'] ?? 0} installées), ${u.direct ?? 0} installées d’un coup.`,
    written: 'scénario',
    replay: 'rejouer',
    reproduces: (ok: boolean): string =>
      ok ? 'le scénario reproduit le défaut' : 'le scénario ne peut pas vérifier cet invariant',
    fleet: (online: number, offline: number, unknown: number, phantomHolds: number) =>
      `Paiements : ${online} en ligne, ${offline} hors ligne, ${unknown} coupés avant PAYÉ ; ` +
      `${phantomHolds} ticket(s) tenu(s) par le registre central pour un appareil qui ne l’a pas payé (réponse perdue).`,
    fleetNotices: (k: Record<string, number>, n: { adopted: number; refused: number; expired: number }) =>
      `Avis : ${k.notice ?? 0} publiés par l’opérateur, ${k['notice-foreign'] ?? 0} signés par une clé étrangère, ${k['notice-older'] ?? 0} plus anciens poussés par un port de service ; ` +
      `${n.adopted} pris par un appareil, ${n.refused} refus affichés, ${n.expired} verdicts TICKET EXPIRÉ.`,
    fleetErased: (n: number) =>
      `${n} double(s) paiement(s) sous un même identifiant cachés par un retour en arrière (le seul enregistrement d’un paiement effacé avant que le registre central l’apprenne).`,
  },
  help: {
    check: `usage : saphir check [--json] [--key HEX|FICHIER] [--lang fr|en] [CODE… | -]
Vérifie des codes de tickets SAPHIR donnés en arguments, ou un par ligne sur l'entrée standard ('-' ou rien).
Les espaces et tabulations autour d'un code sont ignorés ; mettre entre guillemets un code qui contient des espaces.
  --json             un objet JSON par code (clés en snake_case)
  --key HEX|FICHIER  se fier à cette clé publique (64 chiffres hexadécimaux, pour tout numéro de clé) ou à ce
                     fichier de clé ({"key_id": 1, "public_hex": "…"}) au lieu de la clé de test
  --lang fr|en       langue des messages (fr par défaut, en quand LANG vaut en*)
Sortie 0 quand tous les codes sont authentiques, 1 sinon, 2 pour une erreur d'usage (dont l'absence de code).`,
    gen: (
      seed: string,
    ) => `usage : saphir gen --emission E --block B (--full | --from N --count K) [--seed S] [--key FICHIER]
                  [--jobs J] [--quiet] [--lang fr|en]
Écrit les codes SPH1 signés d'un bloc, un par ligne, dans l'ordre des numéros de ticket.
  --full          le bloc entier : 3 000 000 tickets dont les lots sont exactement ceux de l'article 3
  --from/--count  les tickets N … N+K-1 seulement (les mêmes lignes que dans le bloc entier)
  --seed S        le secret dont découlent lots et zones (par défaut '${seed}') ; même graine, même sortie
  --key FICHIER   clé de signature, JSON {"key_id": 1, "seed_hex": "<graine privée Ed25519 de 32 octets, hex>"} ;
                  sans elle, la clé de test publiée (numéro 0) signe, avec un avertissement
  --jobs J        fils de calcul (par défaut : un par cœur)
  --quiet         sans progression (sinon une ligne tous les 10 % sur stderr hors terminal)
Sortie 0, 1 pour une erreur (un fichier de clé illisible…), 2 pour une erreur d'usage.`,
    audit: `usage : saphir audit [FICHIER | -] [--json] [--lang fr|en] [--key HEX|FICHIER] [--jobs J]
Vérifie chaque code de FICHIER (ou de l'entrée standard), un par ligne, signature comprise, et compte
les lots de chaque (émission, bloc) par rapport à l'article 3 ; signale les codes non valides, les
numéros de ticket en double et manquants. Sortie 0 seulement quand chaque bloc est complet, authentique
et conforme à l'article 3 ; 1 sinon ; 2 pour une erreur d'usage.
  --key HEX|FICHIER  se fier à cette clé au lieu de la clé de test : 64 chiffres hexadécimaux (pour tout
                     numéro de clé), ou JSON {"key_id": 1, "public_hex": "…"} (ou "seed_hex", comme saphir gen)
  --jobs J           fils de calcul (par défaut : un par cœur)
  --quiet         sans progression (sinon, pour un FICHIER, une ligne tous les 10 % sur stderr hors terminal)`,
    decode: `usage : saphir decode --source hid-keyboard|hid-pos|serial|image [options] FICHIER…
Écrit chaque code que contient une capture de scanner, un par ligne, dans l'ordre.
  --source S        hid-keyboard, hid-pos : un rapport par ligne en octets hexadécimaux ("02 00 16 00 00 00 00 00"),
                    lignes vides et commentaires # ignorés ; serial : les octets bruts ; image : un PNG, ou des
                    pixels bruts avec --width/--height/--format
  --layout L        disposition du clavier des captures hid-keyboard : us, fr ou auto (par défaut auto)
  --width N --height N --format y8|rgba   images brutes
  --lang fr|en      langue des messages (fr par défaut)
Sortie 0 quand chaque fichier a donné au moins un code, 1 sinon, 2 pour une erreur d'usage.`,
    scan: `usage : saphir scan (--hid VID:PID|CHEMIN [--mode keyboard|pos] [--layout us|fr|auto]
                   | --serial CHEMIN [--baud N] [--ack]) [--json] [--lang fr|en] [--count N]
Lit le scanner branché sur cet ordinateur et écrit le verdict de chaque ticket scanné, jusqu'à
Ctrl+C (ou N codes avec --count).
  --hid VID:PID|CHEMIN  un scanner USB HID (identifiants hexadécimaux, ex. 0c2e:0b61, ou un chemin /dev/hidraw)
  --mode keyboard|pos   son interface clavier (par défaut) ou son interface HID POS
  --layout us|fr|auto   disposition du clavier du scanner (par défaut auto)
  --serial CHEMIN       un scanner série ou port COM virtuel USB ; --baud N (par défaut 9600) ; --ack répond ACK/NAK
Sortie 0 quand chaque ticket scanné était authentique, 1 quand l'un ne l'était pas ou que le scanner ne
s'ouvre pas, 2 pour une erreur d'usage.`,
    image: `usage : saphir image inspect [--key HEX|FICHIER] [--json] [--lang fr|en] FICHIER
Affiche l'en-tête d'une image signée du firmware et vérifie son SHA-256 et sa signature Ed25519, par
défaut avec la clé de développement publiée (--key : une autre clé publique, 64 chiffres hexadécimaux ou un fichier de clé).
Sortie 0 quand l'image est intègre et signée par cette clé, 1 sinon, 2 pour une erreur d'usage.`,
    flash: `usage : saphir flash --port CHEMIN [--port CHEMIN…] [--ports MOTIF] [--baud N] [--key HEX|FICHIER] [--force]
                     [--dry-run] [--no-reboot] [--quiet] [--tech-key HEX|FICHIER] [--lang fr|en] IMAGE
Écrit une image signée du firmware dans un appareil par son port série de service. Le fichier est
vérifié d'abord (format, SHA-256, signature par la clé du firmware : --key, par défaut la clé de
développement publiée) ; puis l'appareil et l'image sont montrés côte à côte et une incompatibilité est
refusée avant d'écrire. Un transfert interrompu reprend ; l'empreinte que l'appareil annonce est
vérifiée ; l'appareil redémarre sur la nouvelle image (mode test jusqu'à sa confirmation). --force
réinstalle l'image que l'appareil exécute déjà. --dry-run s'arrête après la comparaison. Plusieurs
--port (ou --ports '/dev/ttyUSB*') flashent les appareils en parallèle, une ligne de progression chacun
et un tableau récapitulatif à la fin ; l'échec de l'un n'arrête jamais les autres. Hors terminal, la
progression est une ligne tous les 10 % (--quiet : aucune). --tech-key : la clé de technicien qui ouvre
la session de service de l'appareil (JSON {"seed_hex": …} ou 64 chiffres hexadécimaux ; par défaut la
clé de développement publiée, avec un avertissement).
Sortie 0 en cas de réussite, 1 pour un refus ou une erreur (sur l'un des appareils), 2 pour une erreur d'usage.`,
    device: `usage : saphir device info --port CHEMIN [--port CHEMIN…] [--baud N] [--json] [--tech-key HEX|FICHIER] [--lang fr|en]
Demande à un appareil, par son port de service, qui il est et ce qu'il exécute (carte, identifiant, les
deux emplacements d'image, compteur de sécurité, un transfert interrompu), à quelle clé firmware il se
fie (SHA-256), s'il est un appareil de production, et si la clé de technicien (--tech-key ; par défaut
la clé de développement publiée, avec un avertissement) ouvre sa session de service. Plusieurs --port :
chacun à son tour, sous le nom de son port (--json : un objet par ligne). Sortie 0, 1 pour une erreur
(sur l'un des ports), 2 pour une erreur d'usage.`,
    ledger: `usage : saphir ledger export --port CHEMIN [--baud N] [--format csv|json] [--quiet] [--tech-key HEX|FICHIER]
                          [--to URL | --journal | --report [x|z]] [--lang fr|en]
Lit le journal des paiements d'un appareil (ses tickets payés) par son port de service et l'écrit sur la sortie
standard : CSV (par défaut ; un paiement par ligne) ou JSON (un tableau). Hors terminal, la progression
va sur stderr tous les 10 % (--quiet : aucune). --tech-key : la clé de technicien qui ouvre la session
de service de l'appareil (par défaut la clé de développement publiée, avec un avertissement). --to URL :
à la place, porter les paiements hors ligne de l'appareil (signés par l'appareil) au registre central à
URL ; l'appareil les marque transmis. --journal : le journal des vérifications de l'appareil (chaque
verdict affiché, payé ou non). --report (ou --report x) : les chiffres de la période depuis le dernier
rapport Z de l'appareil, comme son rapport X les donne ; --report z : ceux de la période que le dernier
Z a close, comme ce rapport Z les a imprimés. Sortie 0, 1 pour une erreur, 2 pour une erreur d'usage.`,
    sim: `usage : saphir sim [options]
  --scenario FICHIER…     jouer des fichiers de scénario (hw-sim/scenarios/*.yaml) ; sortie 1 si l'un échoue
  --quiet                 avec --scenario : n'écrire que les échecs et le bilan
  --screenshots DOSSIER   où vont les captures d'écran des scénarios (par défaut : à côté de chaque scénario)
  --variant quickjs|quickjs-ng|xs   le moteur (par défaut quickjs ; avec --explore aussi v8, son défaut)
  --flash FICHIER         garder la mémoire NOR simulée dans FICHIER d'une exécution à l'autre (scénarios compris)
  --bridge-hid VID:PID|CHEMIN [--hid-mode keyboard|pos]   un vrai scanner HID alimente l'appareil simulé
  --bridge-serial CHEMIN [--baud N]                      un vrai scanner série alimente l'appareil simulé
  --pty [CHEMIN] [--baud N] exposer le port de service de l'appareil comme pseudo-terminal (pour saphir flash)
  --web [--port N] [--host H] [--open]   le simulateur dans une page web, sur un serveur HTTP local (127.0.0.1 par défaut)
  --explore N [--seed S] [--index I] [--jobs J] [--json] [--out DOSSIER] [--faults GROUPES]
                          l'explorateur de pannes : N scénarios aléatoires vérifiés par un modèle (docs/explorer.md) ;
                          sortie 1 sur une violation. Il exécute le bundle sous v8, un programme sur 32 sous QuickJS
                          (--quickjs-every K, 0 : aucun), et rejoue chaque violation sous QuickJS ;
                          --variant quickjs les exécute tous sous QuickJS. Sous v8, l'hôte fait les calculs
                          Ed25519 sur la courbe (--ed25519 firmware : ceux du firmware)
  --explore N --fleet [--devices K] [--attacker]   scénarios de flotte : 2 à 4 appareils (K) partageant
                          un registre central intégré, coupures réseau, ses redémarrages ; invariants de flotte
                          (docs/explorer.md) ; --attacker : réponses réécrites ou forgées, retours en arrière, clones
  --firmware-key HEX|FICHIER  provisionner l'appareil avec cette clé publique firmware (un appareil de
                          production, sauf la clé de développement) ; par défaut : les clés de développement
  --tech-key HEX|FICHIER  provisionner l'appareil avec cette clé publique de technicien (accès au port de service)
  --provision IMAGE       programmation en usine : l'IMAGE signée dans l'emplacement A d'une puce vierge, vérifiée
                          avec les clés provisionnées (avec --flash FICHIER la puce est gardée ; relancé, rien ne change)
  --device-key FICHIER    provisionner la clé de l'appareil auprès du registre central (sa graine privée, seed_hex) ; par défaut :
                          une clé neuve sur un appareil de production, sinon la clé de développement publiée
  --device-id ID          l'identifiant de l'appareil (interactif, --pty, --web) ; avec --registry, par défaut
                          un identifiant de cette exécution (SIM- et 4 chiffres hexa), deux simulateurs sont
                          donc deux appareils
  --department DÉP        le département où se trouve l'appareil (interactif, --pty, --web) : les jours
                          fériés de ce département dans l'avis de l'opérateur décalent la fin des réclamations
  --registry-pub HEX|FICHIER provisionner la clé publique du registre central : l'appareil ne paie sur aucune
                          réponse qu'elle n'a pas signée ; par défaut : la clé de développement publiée du registre central
  --operator-key HEX|FICHIER provisionner la clé publique de l'opérateur : les avis qu'elle n'a pas
                          signés sont refusés ; par défaut : la clé d'opérateur de développement publiée
  --registry URL|embedded le registre central que l'appareil interroge avant de payer (embedded : PGlite,
                          dans le processus) ; les scénarios de flotte (devices:, network:, expect-registry:)
                          en démarrent un intégré
                          avec --web : celui de l'appareil de la page, via le serveur de la page
  --lang fr|en            langue des messages de cet outil (fr par défaut)
Sans --scenario : interactif. Taper « aide » / « help » pour les commandes.
Sortie 0, 1 quand un scénario a échoué ou pour une erreur, 2 pour une erreur d'usage, 130 quand Ctrl-C arrête --explore.`,
    demo: `usage : saphir demo [--lang fr|en] [--scenario FICHIER] [--quiet]
Démarre le firmware dans le simulateur et joue hw-sim/scenarios/demo.yaml (ou FICHIER), en dessinant
l'écran à chaque changement. --quiet n'écrit que le résumé. Sortie 0 quand toutes les étapes ont réussi,
1 quand l'une a échoué, 2 pour une erreur d'usage.`,
    ports: `usage : saphir ports [--json] [--port CHEMIN…] [--baud N] [--timeout MS] [--lang fr|en]
Liste les ports série de cet ordinateur (lus dans /sys/class/tty et /dev/serial/by-id) : chemin by-id,
VID:PID USB, numéro de série et, quand un appareil SAPHIR répond à IDENTIFY en moins de --timeout
(300 ms par défaut) à --baud (115200 par défaut), son identifiant et sa version en cours. --port ajoute
un port que le système ne liste pas (un pseudo-terminal). Sortie 0 (même quand il n'y en a aucun), 2
pour une erreur d'usage.`,
    notice: `usage : saphir notice create --version N [--from FICHIER] [--emission NUM:NOM:EN_VENTE[:CLÔTURE]]… [--close NUM:DATE]…
                            [--payout-limit EUR] [--offline-limit EUR] [--id-threshold EUR] [--holiday [DÉP:]DATE]… [-o FICHIER]
        saphir notice sign FICHIER [--operator-key HEX|FICHIER] [-o FICHIER]
        saphir notice inspect FICHIER [--operator-key HEX|FICHIER] [--department DÉP] [--json]
        saphir notice push FICHIER --port CHEMIN [--baud N] [--tech-key FICHIER] [--no-reboot]
Les avis de l’opérateur (docs/operations.md) : les émissions en vente et closes, les limites de paiement,
hors ligne et de pièce d’identité, des jours fériés en plus (départements d’outre-mer). Un appareil prend
un avis signé de version plus haute que le sien, par la synchronisation avec son registre central ou par son port
de service, et refuse un avis plus ancien, non signé ou signé par une autre clé.
create : un avis, non signé (dates AAAA-MM-JJ ; une émission sans CLÔTURE est en vente, sans limite de
  paiement jusqu’à son avis de clôture ; --from FICHIER part d’un avis, version + 1 ; --close NUM:DATE
  clôt une de ses émissions ; --holiday DATE : un jour férié pour tous les appareils, --holiday 974:DATE :
  pour les appareils configurés dans le département 974 seulement). Par défaut : paiement 300, hors ligne
  150, pièce d’identité dès 5000 €. Un appareil ne paie aucun ticket d’une émission avant son jour
  EN_VENTE (00:00 heure de Paris).
sign : signe avec la graine privée de l’opérateur (64 chiffres hexadécimaux ou {"seed_hex": …}) ; sans
  elle, la clé d’opérateur de développement publiée (signalé ; les appareils de production la refusent).
inspect : l’avis, la limite de paiement de chaque émission (30 jours après la clôture, reportée après les
  dimanches et jours fériés ; --department DÉP : avec ceux de ce département) et si la signature correspond à --operator-key (clé publique ; par défaut
  celle de développement). Code 1 sinon.
push : l’enregistre sur un appareil par son port de service (session technicien, --tech-key), puis
  redémarre l’appareil pour qu’il s’applique (--no-reboot : au prochain démarrage).
registry serve --notice FICHIER, ou registry notice publish FICHIER, le donne à chaque appareil à sa
prochaine synchronisation.
Code 0, 1 en cas d’erreur ou de refus, 2 en cas d’erreur d’usage.`,
    registry: `usage : saphir registry serve [--db DOSSIER | --postgres URL] [--port N] [--host H] [--key HEX|FICHIER]… [--registry-key HEX|FICHIER] [--production] [--rate-limit N] [--reservation-minutes N] [--notice FICHIER] [--images DOSSIER]
        saphir registry devices add ID CLÉ [--db DOSSIER | --postgres URL]
        saphir registry devices add ID CLÉ --group G | devices group ID G
        saphir registry devices list [--json] [--stale-days N] [--db DOSSIER | --postgres URL]
        saphir registry campaign create IMAGE --name N [--group G] [--phases 1,10,100] [--max-failures K] [--device-deadline HEURES] [--retries N] [--images DOSSIER]
        saphir registry campaign status [NOM] [--json] | campaign pause|resume|abort NOM
        saphir registry devices revoke ID [--db DOSSIER | --postgres URL]
        saphir registry notice publish FICHIER | show [--json] [--db DOSSIER | --postgres URL]
        saphir registry report [--json] [--since AAAA-MM-JJ] [--stale-days N] [--db DOSSIER | --postgres URL]
Le registre central des tickets payés de la flotte : le premier appareil qui réclame un ticket l'obtient,
toute réclamation suivante apprend qui l'a payé et quand ; des paiements hors ligne du même ticket par
deux appareils, transmis plus tard, sont des conflits (voir le rapport). Stockage : PGlite dans DOSSIER (par
défaut .saphir-registry/, rien à installer) ou PostgreSQL à URL ; serve et devices add créent DOSSIER,
les autres sous-commandes refusent un DOSSIER qui n'existe pas. Sans appareil enrôlé, le registre est
une flotte de développement qui accepte la clé d'appareil de développement publiée ; enrôler le premier
appareil, ou --production, y met fin. --key HEX|FICHIER (répétable, comme pour check) : les clés publiques
des tickets acceptées par le registre, au lieu de la clé de test publiée ; --production n'accepte jamais
la clé de test et demande --key et --registry-key. La clé d'appareil de développement publiée n'est jamais enrôlée (devices
add la refuse) et --production la refuse toujours. --rate-limit N : requêtes par seconde et par appareil
(rafales de 4N ; 5 par défaut, 0 : aucune limite), au-delà réponse 429 avec Retry-After.
--registry-key HEX|FICHIER : la graine Ed25519 du registre (64 chiffres
hexadécimaux, ou un fichier {"seed_hex": …}) ; elle signe chaque réponse, et les appareils reçoivent sa clé
publique. Sans elle, la clé de développement publiée du registre (dit au démarrage). Les réclamations sont
en deux temps : la réclamation réserve le ticket, la synchronisation de l'appareil après paiement le
confirme ; un appareil qui redemande un ticket qu'il a confirmé reçoit DÉJÀ PAYÉ et figure dans les
redemandes du rapport. --reservation-minutes N (30 par défaut, 1–10080) : une réclamation non confirmée
en N minutes est accordée à un autre appareil qui la demande (le premier a pu s'éteindre avant de
confirmer) ; elle figure dans les réservations libérées du rapport, et la confirmation tardive du premier
est un conflit. PGlite est la base d'un seul processus : arrêter serve avant devices
add/revoke/report sur son DOSSIER (ou utiliser PostgreSQL, que plusieurs processus partagent).
devices list montre le dernier état de chaque appareil (firmware, slot, avis, journal, à envoyer, raison
du démarrage, temps en marche, erreurs : envoyés à chaque synchronisation) et MUET pour un appareil non
entendu depuis --stale-days N jours (7 par défaut). campaign create déploie IMAGE par phases
(pourcentages cumulés, 1,10,100 par défaut) sur les appareils enrôlés (du --group G), ou, dans une flotte
de développement, sur chaque appareil entendu : chaque phase commence quand la précédente est finie ;
--max-failures K échecs (1 par défaut) l'arrêtent. --device-deadline H : un appareil d'une phase en
cours qui n'a rien dit de l'image en H heures (depuis le début de sa phase ou sa dernière étape) échoue ;
--retries N : un téléchargement échoué est recommandé jusqu'à N fois avant ; --images DOSSIER : l'image
est gardée dans le fichier DOSSIER/HASH.img, pas dans la base, et registry serve --images DOSSIER en lit
les morceaux (4 Kio à la fois). status, pause, resume, abort.
Sortie 0, 1 pour une erreur, 2 pour une erreur d'usage.`,
  },
};

/** The details of src/image/format.ts (English, from the portable core) in French; unknown ones as they are. */
const IMAGE_DETAILS: [RegExp, (...g: string[]) => string][] = [
  [/^unsupported header size (\d+)$/, (n) => `taille d'en-tête ${n} non prise en charge (32 attendu)`],
  [
    /^bad magic (0x[0-9a-f]+): not a firmware image$/,
    (x) => `signature de format ${x} incorrecte : pas une image de firmware`,
  ],
  [
    /^truncated: (\d+) bytes, the header alone is (\d+)$/,
    (n, h) => `tronquée : ${n} octets, l'en-tête seul en fait ${h}`,
  ],
  [
    /^truncated: (\d+) bytes, header says the bundle alone ends at (\d+)$/,
    (n, e) => `tronquée : ${n} octets, l'en-tête place la fin du bundle à ${e}`,
  ],
  [/^truncated: (\d+) bytes of (\d+)$/, (n, t) => `tronquée : ${n} octets sur ${t}`],
  [/^unknown flags (0x[0-9a-f]+)$/, (f) => `drapeaux inconnus ${f}`],
  [/^(\d+) unexpected bytes after the image$/, (n) => `${n} octets en trop après l'image`],
  [/^corrupted: no TLV area after the bundle$/, () => 'corrompue : pas de zone TLV après le bundle'],
  [/^corrupted: TLV area size (\d+)$/, (n) => `corrompue : taille de zone TLV ${n}`],
  [/^corrupted: TLV record cut$/, () => 'corrompue : enregistrement TLV coupé'],
  [/^corrupted: TLV record overruns the area$/, () => 'corrompue : un enregistrement TLV dépasse la zone'],
  [/^corrupted: SHA-256 record is not 32 bytes$/, () => "corrompue : l'enregistrement SHA-256 ne fait pas 32 octets"],
  [/^corrupted: Ed25519 record is not 64 bytes$/, () => "corrompue : l'enregistrement Ed25519 ne fait pas 64 octets"],
  [/^corrupted: key hash record is not 32 bytes$/, () => "corrompue : l'empreinte de clé ne fait pas 32 octets"],
  [/^corrupted: no SHA-256 record$/, () => "corrompue : pas d'enregistrement SHA-256"],
  [/^unsigned: no Ed25519 record$/, () => "non signée : pas d'enregistrement Ed25519"],
  [/^the manifest signature does not verify$/, () => 'la signature du manifeste ne se vérifie pas'],
  [
    /^corrupted: manifest signature record is not 64 bytes$/,
    () => 'corrompue : la signature du manifeste ne fait pas 64 octets',
  ],
  [/^SHA-256 mismatch: computed ([0-9a-f]+)$/, (h) => `SHA-256 non conforme : calculé ${h}`],
  [/^signed by another key than the firmware key$/, () => 'signée par une autre clé que la clé du firmware'],
  [
    /^Ed25519 signature does not verify with the firmware key$/,
    () => 'la signature Ed25519 ne se vérifie pas avec la clé du firmware',
  ],
];

function frImageDetail(d: string): string {
  for (const [re, say] of IMAGE_DETAILS) {
    const m = re.exec(d);
    if (m) return say(...m.slice(1));
  }
  return d;
}

/** What a step or field needs, as hw-sim/scenario.ts names it. */
const NEEDS: Record<string, string> = {
  'a duration (250ms, 2s)': 'une durée (250ms, 2s)',
  'an ISO date-time': 'une date-heure ISO',
  'a key: OK, C or 0-9': 'une touche : OK, C ou 0-9',
  'code or ticket': 'code ou ticket',
  'contains or matches': 'contains ou matches',
  'count or contains': 'count ou contains',
  'a file name ending in .png': 'un nom de fichier en .png',
  text: 'du texte',
  boolean: 'un booléen',
  number: 'un nombre',
  string: 'du texte',
  'the scenario': 'le scénario',
};
/** What a step needs, in French: a known phrase, else its connectives and asides translated. */
const need = (w: string) =>
  NEEDS[w] ??
  w
    .replace(/\bexactly one of\b/g, 'exactement un de')
    .replace(/\bor\b/g, 'ou')
    .replace(/\band\b/g, 'et')
    .replace(/\(a signed notice\)/, '(un avis signé)')
    .replace(/, not both$/, ', pas les deux')
    .replace(/\(OK, C or 0-9\)/, '(OK, C ou 0-9)')
    .replace(/\(a duration\)/, '(une durée)')
    .replace(/\(block defaults to 1\)/, '(block vaut 1 par défaut)');

/** The problems of hw-sim/scenario.ts and hw-sim/tickets.ts (English) in French; unknown ones as they are. */
const SCENARIO_PROBLEMS: [RegExp, (...g: string[]) => string][] = [
  [/^(.+) must be a single value$/, (w) => `${w} doit être une valeur unique`],
  [/^(.+) must be an integer from (-?\d+) to (-?\d+)$/, (w, a, b) => `${w} doit être un entier de ${a} à ${b}`],
  [/^(.+) must be text$/, (w) => `${w} doit être du texte`],
  [/^(.+) must be one of (.+), not '(.*)'$/, (w, l, v) => `${w} vaut ${l}, pas « ${v} »`],
  [/^(.+) must be a duration such as 250ms, 2s, 5m, 1h$/, (w) => `${w} doit être une durée comme 250ms, 2s, 5m, 1h`],
  [/^(.+) must be a map \((.*)\)$/, (w, l) => `${w} doit être une table (${l})`],
  [
    /^unknown field '(.+)' in (.+) \(known: (.*)\)$/,
    (k, w, l) => `champ inconnu « ${k} » dans ${need(w)} (connus : ${l})`,
  ],
  [/^missing '(\w+)'$/, (k) => `« ${k} » manque`],
  [/^notice: refused or lenient, not both$/, () => 'notice : refused ou lenient, pas les deux'],
  [/^inputs must be a list of (.*)$/, (l) => `inputs doit être une liste de ${l}`],
  [
    /^(clock|set-clock) must be an ISO date-time such as (\S+)$/,
    (k, x) => `${k} doit être une date-heure ISO comme ${x}`,
  ],
  [/^emissions must be a list of \{emission, closes\}$/, () => 'emissions doit être une liste de {emission, closes}'],
  [
    /^an emission needs emission and closes \(YYYY-MM-DD\)$/,
    () => 'une émission demande emission et closes (AAAA-MM-JJ)',
  ],
  [/^closes must be a date YYYY-MM-DD$/, () => 'closes doit être une date AAAA-MM-JJ'],
  [/^steps must be a list$/, () => 'steps doit être une liste'],
  [/^steps is empty$/, () => 'steps est vide'],
  [
    /^a step is a name \(boot\) or a map of one step name to its arguments \(delay: 250ms\)$/,
    () => "une étape est un nom (boot) ou une table d'un nom d'étape vers ses arguments (delay: 250ms)",
  ],
  [/^unknown step '(.+)' \(known: (.*)\)$/, (k, l) => `étape inconnue « ${k} » (connues : ${l})`],
  [/^(\S+) takes no arguments$/, (k) => `${k} ne prend pas d'argument`],
  [/^matches: (.*)$/, (e) => `matches : ${e}`],
  [
    /^expect-display needs exactly one of contains or matches$/,
    () => 'expect-display demande soit contains, soit matches',
  ],
  [/^(\S+) needs 'is'$/, (k) => `${k} demande « is »`],
  [/^contains needs emission, block and number$/, () => 'contains demande emission, block et number'],
  [/^expect-ledger needs count or contains$/, () => 'expect-ledger demande count ou contains'],
  [/^screenshot must name a \.png file$/, () => 'screenshot doit nommer un fichier .png'],
  [
    /^screenshot must stay in the scenario's folder \(no absolute path, no \.\.\)$/,
    () => 'screenshot doit rester dans le dossier du scénario (pas de chemin absolu, pas de ..)',
  ],
  [/^scan needs exactly one of code or ticket$/, () => 'scan demande soit code, soit ticket'],
  [/^code must be text \(quote it\)$/, () => 'code doit être du texte (entre guillemets)'],
  [/^key applies to ticket, not to code$/, () => 'key ne s’applique qu’à ticket, pas à code'],
  [
    /^ticket needs emission, number and prize \(block defaults to 1\)$/,
    () => 'ticket demande emission, number et prize (block vaut 1 par défaut)',
  ],
  [
    /^scanner (\S+) has no option '(.+)' \(its options: (.*)\)$/,
    (v, k, l) => `le lecteur ${v} n'a pas d'option « ${k} » (ses options : ${l})`,
  ],
  [/^(\S+) must be a (\w+)$/, (k, t) => `${k} doit être ${need(t)}`],
  [
    /^a scenario is a map with name, steps, and optionally config, device, seed$/,
    () => 'un scénario est une table avec name, steps, et au besoin config, device, seed',
  ],
  [/^(emission|block) must be 0 … 65535$/, (k) => `${k} doit valoir de 0 à 65535`],
  [/^number must be 0 … 2999999$/, () => 'number doit valoir de 0 à 2999999'],
  [
    /^prize (\d+) is neither 0 nor an amount of the prize table$/,
    (p) => `le lot ${p} n'est ni 0 ni un montant du barème`,
  ],
  [/^(\S+) must be a number from (\S+) to (\S+)$/, (k, a, b) => `${k} doit être un nombre de ${a} à ${b}`],
  [
    /^phases: increasing percentages ending at 100, as "1,10,100"$/,
    () => 'phases : des pourcentages croissants jusqu’à 100, comme « 1,10,100 »',
  ],
  [/^devices must be a list of device ids$/, () => 'devices doit être une liste d’identifiants d’appareils'],
  [
    /^a device id is 1 to 16 printable ASCII characters$/,
    () => 'un identifiant d’appareil fait 1 à 16 caractères ASCII imprimables',
  ],
  [
    /^an emission needs emission \(and closes, YYYY-MM-DD, once closed\)$/,
    () => 'une émission demande emission (et closes, AAAA-MM-JJ, une fois close)',
  ],
  [/^(\S+) needs (.+)$/, (k, w) => `${k} demande ${need(w)}`],
];

/** The scanner models' option problems (hw-sim/scanners, English) in French. */
const SCANNER_PROBLEMS: [RegExp, (...g: string[]) => string][] = [
  [/^unknown scanner '(.+)'$/, (v) => `lecteur inconnu « ${v} »`],
  [/^(\S+) has no option '(.+)'$/, (v, k) => `le lecteur ${v} n'a pas d'option « ${k} »`],
  [/^(\S+) option '(.+)' must be a (\w+)$/, (v, k, t) => `l'option « ${k} » du lecteur ${v} doit être ${need(t)}`],
  [
    /^width and height must be integers from 64 \(at most 16 Mpixel\)$/,
    () => 'width et height doivent être des entiers d’au moins 64 (16 Mpixels au plus)',
  ],
  [/^(\w+) must be from ([\d.]+) to ([\d.]+)( ms)?$/, (k, a, b, ms) => `${k} doit valoir de ${a} à ${b}${ms ?? ''}`],
  [/^module size does not fit the frame$/, () => 'la taille des modules ne tient pas dans l’image'],
  [/^aim must be three characters$/, () => 'aim doit faire trois caractères'],
  [/^cannot type '(.+)' with Alt codes$/, (c) => `impossible de taper « ${c} » par codes Alt`],
  [/^layout (\S+) cannot type '(.+)'$/, (l, c) => `la disposition ${l} ne peut pas taper « ${c} »`],
  [/^unknown layout '(.+)'$/, (l) => `disposition inconnue « ${l} »`],
  [/^unknown terminator '(.+)'$/, (t) => `terminaison inconnue « ${t} »`],
  [/^noise needs a seeded rng$/, () => 'noise demande un générateur aléatoire à graine'],
  [/^baud must be one of (.+)$/, (l) => `baud vaut l’une de ces valeurs : ${l}`],
  [/^(.+) leaves (.+) \(no absolute path, no \.\.\)$/, (r, b) => `${r} sort de ${b} (pas de chemin absolu, pas de ..)`],
  [/^(.+) leaves (.+)$/, (r, b) => `${r} sort de ${b}`],
  [/^(.+) is a symbolic link \(not followed\)$/, (a) => `${a} est un lien symbolique (non suivi)`],
];

/** A campaign's refusals (host/registry/campaigns.ts, English) in French. */
const CAMPAIGN_PROBLEMS: [RegExp, (...g: string[]) => string][] = [
  [
    /^phases '(.*)': increasing percentages from 1 to 100, ending at 100$/,
    (t) => `phases « ${t} » : des pourcentages croissants de 1 à 100, jusqu’à 100`,
  ],
  [/^not a firmware image: (.*)$/, (d) => `pas une image de firmware : ${frImageDetail(d)}`],
  [
    /^the image does not hash to its SHA-256 record \(damaged\)$/,
    () => 'l’image ne correspond pas à son empreinte SHA-256 (endommagée)',
  ],
  [/^name '(.*)': 1–40 printable characters$/, (n) => `nom « ${n} » : 1 à 40 caractères imprimables`],
  [/^no enrolled device in group (.+)$/, (g) => `aucun appareil enrôlé dans le groupe ${g}`],
  [/^no device to update$/, () => 'aucun appareil à mettre à jour'],
  [/^campaign (.+) exists already$/, (n) => `la campagne ${n} existe déjà`],
  [/^no campaign (.+)$/, (n) => `pas de campagne ${n}`],
  [/^campaign (.+) is (\w+): cannot (\w+)$/, (n, s, v) => `la campagne ${n} est ${s} : ${v} impossible`],
];

/**
 * A notice's problems (src/notice.ts: its fields, by their JSON names, which stay as they are) and the
 * device's refusal details (rom/service.ts NOTICE) in French.
 */
const NOTICE_PROBLEMS: [RegExp, (...g: string[]) => string][] = [
  [/^(.+): not an object$/, (at) => `${at} : pas un objet`],
  [/^(.+): unknown field (.+)$/, (at, f) => `${at} : champ inconnu ${f}`],
  [/^(.+): not a whole number (\d+)…(\d+)$/, (at, a, b) => `${at} : pas un nombre entier de ${a} à ${b}`],
  [/^payout_limit_eur: above the ID threshold$/, () => 'payout_limit_eur : au-dessus du seuil de pièce d’identité'],
  [/^(.+): not a list of (\d+)…(\d+)$/, (at, a, b) => `${at} : pas une liste de ${a} à ${b} éléments`],
  [/^(.+)\.number: not 0…65535, once$/, (at) => `${at}.number : pas un numéro de 0 à 65535, unique`],
  [/^(.+)\.name: not 1…(\d+) printable characters$/, (at, n) => `${at}.name : pas 1 à ${n} caractères imprimables`],
  [/^(.+)\.on_sale: not a date YYYY-MM-DD$/, (at) => `${at}.on_sale : pas une date AAAA-MM-JJ`],
  [
    /^(.+)\.closes: not a date YYYY-MM-DD from on_sale on$/,
    (at) => `${at}.closes : pas une date AAAA-MM-JJ à partir de on_sale`,
  ],
  [
    /^(.+)\.code: not a department \(01…95, 2A, 2B, 971…976\), once$/,
    (at) => `${at}.code : pas un département (01…95, 2A, 2B, 971…976), unique`,
  ],
  [
    /^(.+): not a date YYYY-MM-DD after the one before$/,
    (at) => `${at} : pas une date AAAA-MM-JJ postérieure à la précédente`,
  ],
  [/^notice: over (\d+) bytes$/, (n) => `avis : plus de ${n} octets`],
  [/^over (\d+) characters$/, (n) => `plus de ${n} caractères`],
  [/^not JSON$/, () => 'pas du JSON'],
  [/^not ASCII$/, () => 'pas de l’ASCII'],
  [/^signature: not 128 lowercase hex digits$/, () => 'signature : pas 128 chiffres hexadécimaux minuscules'],
  [/^the notice is not signed$/, () => 'l’avis n’est pas signé'],
  [/^this device has no operator key$/, () => 'cet appareil n’a pas de clé d’opérateur'],
  [
    /^the signature does not verify with the operator key$/,
    () => 'la signature ne correspond pas à la clé d’opérateur de l’appareil',
  ],
  [
    /^version (\d+) is not above the version held, (\d+)$/,
    (v, h) => `la version ${v} n’est pas supérieure à celle que l’appareil a, ${h}`,
  ],
  [/^no answer$/, () => 'pas de réponse'],
  [/^reply is not JSON$/, () => 'réponse qui n’est pas du JSON'],
];

/** A notice's problem or the device's refusal detail in French; one it does not know as it is. */
function frNoticeProblem(d: string): string {
  return matchProblem(NOTICE_PROBLEMS, d) ?? d;
}

function frWebMode(m: string): string {
  return m === 'developer'
    ? 'développement (sans image signée)'
    : m.replace(/^image slot (\w) v/, 'image, emplacement $1, v');
}

/** Why the simulator switched the device off (hw-sim/sim.ts powerOff). */
const POWER_OFF: Record<string, string> = {
  'power off': 'mis hors tension',
  'power-on': 'jamais allumé',
  reboot: 'redémarrage',
  'power cut': 'coupure de courant',
  'power cut during a flash operation': 'coupure de courant pendant une opération de la flash',
  'power cut during an update': 'coupure de courant pendant une mise à jour',
  'power cut in the bootloader': 'coupure de courant dans le chargeur de démarrage',
  dispose: 'simulateur arrêté',
};

/** What is wrong with a public key (src/crypto/device-rules.ts publicKeyProblem). */
const KEY_PROBLEMS: Record<string, string> = {
  'small-order point': 'point d’ordre faible',
  'not a canonical curve point': 'pas un point canonique de la courbe',
  'not 32 bytes': 'pas 32 octets',
};
const KEY_NAMES: Record<string, string> = {
  'firmware key': 'clé du firmware',
  'technician key': 'clé du technicien',
  'registry key': 'clé du registre central',
  'operator key': 'clé d’opérateur',
};
const keyName = (k: string) => KEY_NAMES[k] ?? k.replace(/^ticket key (\d+)$/, 'clé de tickets $1');

/** The provisioning's and bootloader's refusals (rom/provision.ts, hw-sim/sim.ts; English) in French. */
const PROVISION_PROBLEMS: [RegExp, (...g: string[]) => string][] = [
  [/^provisioning: (.*)$/, (d) => `provisionnement : ${frDetail(d)}`],
  [
    /^bootloader: no image, and a production device has no developer mode$/,
    () => 'chargeur de démarrage : pas d’image, et un appareil de production n’a pas de mode développement',
  ],
  [
    /^((?:firmware|technician|registry|operator|ticket) key(?: \d+)?): (.+), no signature would verify with it$/,
    (k, p) => `${keyName(k)} : ${KEY_PROBLEMS[p] ?? p}, aucune signature ne se vérifierait avec elle`,
  ],
  [
    /^a production device cannot trust the development firmware key$/,
    () => 'un appareil de production ne peut pas faire confiance à la clé de firmware de développement',
  ],
  [
    /^a production device cannot trust the development technician key: give it its own \(--tech-key\)$/,
    () =>
      'un appareil de production ne peut pas faire confiance à la clé de technicien de développement : donnez-lui la sienne (--tech-key)',
  ],
  [
    /^the device is already provisioned with other keys \(write-once area\)$/,
    () => 'l’appareil est déjà provisionné avec d’autres clés (zone à écriture unique)',
  ],
  [/^the provisioning area is damaged$/, () => 'la zone de provisionnement est endommagée'],
  [
    /^device key: the public key is not the seed’s$/,
    () => 'clé d’appareil : la clé publique n’est pas celle de sa graine',
  ],
];

/** Every table frDetail reads, in the order they are tried. */
const DETAIL_PROBLEMS = [
  ...PROVISION_PROBLEMS,
  ...SCANNER_PROBLEMS,
  ...CAMPAIGN_PROBLEMS,
  ...NOTICE_PROBLEMS,
  ...SCENARIO_PROBLEMS,
];

/** `d` in French by the first pattern of `table` it matches; undefined when none does. */
function matchProblem(table: [RegExp, (...g: string[]) => string][], d: string): string | undefined {
  for (const [re, say] of table) {
    const m = re.exec(d);
    if (m) return say(...m.slice(1));
  }
  return undefined;
}

/** A problem of the scanner models, scenarios, tickets or campaigns in French; one it does not know as it is. */
function frDetail(d: string): string {
  return matchProblem(DETAIL_PROBLEMS, d) ?? d;
}

function frScenarioProblem(d: string): string {
  return matchProblem(SCENARIO_PROBLEMS, d) ?? `YAML : ${d}`;
}

/** A value the device logs in English (an error's own text): quoted, as it is. */
const q = (s: string) => `« ${s} »`;
const n = (x: string, one: string, many: string) => `${x} ${x === '0' || x === '1' ? one : many}`;

/** The device's log lines (firmware/, hw-sim/sim.ts; English) in French, for the web page's log panel. */
const LOG_LINES: [RegExp, (...g: string[]) => string][] = [
  [
    /^boot (\S+)( \(dev\))? image (\S+) config (flash sector (\d)|defaults.*)$/,
    (v, dev, h, src, sector) =>
      `démarrage ${v}${dev ? ' (développement)' : ''}, image ${h}, configuration ${sector !== undefined ? `du secteur ${sector}` : 'par défaut'}`,
  ],
  [
    /^ready: (\d+) payments held, (\d+) keys, limit (\d+) EUR$/,
    (p, k, l) => `prêt : ${n(p, 'paiement', 'paiements')} au journal, ${n(k, 'clé', 'clés')}, limite ${l} €`,
  ],
  [/^image confirmed$/, () => 'image confirmée'],
  [/^clock: RTC (\d+) not believed, trusted (\d+)$/, (a, b) => `horloge : RTC ${a} non crue, heure de confiance ${b}`],
  [/^clock: no trusted time, (\S+) not payable$/, (t) => `horloge : pas d’heure de confiance, ${t} non payable`],
  [/^ledger: damaged, (\S+) not payable$/, (t) => `journal des paiements endommagé : ${t} non payable`],
  [/^clock: (\d+) far ahead of (\d+), asked$/, (a, b) => `horloge : ${a} très en avance sur ${b}, question posée`],
  [/^clock: (\d+) confirmed$/, (a) => `horloge : ${a} confirmée`],
  [/^clock: refused$/, () => 'horloge : refusée'],
  [/^payment of (\S+) failed: (.*)$/, (t, e) => `paiement de ${t} en échec : ${q(e)}`],
  [/^paid (\S+) (\d+) EUR( offline)?$/, (t, e, off) => `payé ${t} ${e} €${off ? ' hors ligne' : ''}`],
  [/^error after payment: (.*)$/, (e) => `erreur après le paiement : ${q(e)}`],
  [/^error: (.*)$/, (e) => `erreur : ${q(e)}`],
  [/^(\S+): expired before OK$/, (t) => `${t} : expiré avant OK`],
  [/^receipt: reprint (done|failed)$/, (r) => `reçu : réimpression ${r === 'done' ? 'faite' : 'en échec'}`],
  [
    /^notice (\d+) from (\S+) refused: ([\w -]+?)(?: \((.*)\))?$/,
    (v, from, why, d) =>
      `avis ${v} ${from === 'registry' ? 'du registre central' : `de ${from}`} refusé : ${fr.notice.reasons[why] ?? (why === 'no partition' ? 'pas de partition d’avis' : q(why))}${d ? ` (${frNoticeProblem(d)})` : ''}`,
  ],
  [
    /^notice (\d+) applied \((\S+)\), (\d+) emissions$/,
    (v, from, e) =>
      `avis ${v} appliqué (${from === 'registry' ? 'registre central' : from}), ${n(e, 'émission', 'émissions')}`,
  ],
  [/^notice: (.*)$/, (e) => `avis : ${q(e)}`],
  [/^journal: (.*)$/, (e) => `journal des vérifications : ${q(e)}`],
  [
    /^registry: no network or key: payments stay local$/,
    () => 'registre central : pas de réseau ou de clé, les paiements restent locaux',
  ],
  [
    /^registry: no outbox \((.*)\): payments stay local$/,
    (e) => `registre central : pas de file d’envoi (${q(e)}), les paiements restent locaux`,
  ],
  [/^registry: device key (\S+)$/, (k) => `registre central : clé de l’appareil ${k}`],
  [/^registry: (\S+) already paid by (.+)$/, (t, d) => `registre central : ${t} déjà payé par ${d}`],
  [/^registry: no answer \((.*)\)$/, (w) => `registre central : pas de réponse (${q(w)})`],
  [/^registry: (\S+), (\d+) to send$/, (u, k) => `registre central : ${u}, ${k} à envoyer`],
  [/^registry refused the claim: (.*)$/, (w) => `le registre central a refusé la demande : ${q(w)}`],
  [
    /^outbox: (\d+) entries without a payment dropped$/,
    (k) => `file d’envoi : ${k} entrée(s) sans paiement abandonnée(s)`,
  ],
  [/^outbox: (.*)$/, (e) => `file d’envoi : ${q(e)}`],
  [/^sync: not sent \((.*)\), (\d+) waiting$/, (e, k) => `synchronisation : rien d’envoyé (${q(e)}), ${k} en attente`],
  [/^sync: (\S+) CONFLICT, also paid by (.+)$/, (t, d) => `synchronisation : ${t} EN CONFLIT, payé aussi par ${d}`],
  [/^sync: (\S+) refused: (.*)$/, (t, r) => `synchronisation : ${t} refusé : ${q(r)}`],
  [/^sync: (\d+) sent, (\d+) waiting$/, (a, b) => `synchronisation : ${a} envoyé(s), ${b} en attente`],
  [/^update: restarting into the new image$/, () => 'mise à jour : redémarrage sur la nouvelle image'],
  [/^update: installed (\S+)$/, (v) => `mise à jour : ${v} installée`],
  [/^update: refused: (.*)$/, (d) => `mise à jour : refusée, ${q(d)}`],
  [/^update: campaign over, download dropped$/, () => 'mise à jour : campagne finie, téléchargement abandonné'],
  [/^update (.+): from (\d+)$/, (c, at) => `mise à jour ${c} : reprise à l’octet ${at}`],
  [/^update (.+): refused: (.*)$/, (c, d) => `mise à jour ${c} : refusée, ${q(d)}`],
  [/^halted: (.*)$/, (w) => `arrêté : ${q(w)}`],
  [
    /^report ([XZ]): (\d+) payments (\d+) EUR, (\d+) not paid$/,
    (k, p, e, u) =>
      `rapport ${k} : ${n(p, 'paiement', 'paiements')}, ${e} €, ${n(u, 'gain non payé', 'gains non payés')}`,
  ],
  [/^ledger: (\d+) damaged, repaired(.*)$/, (k, l) => `journal des paiements : ${k} endommagé(s), réparé(s) :${l}`],
  [
    /^ledger: clock implausible \((\d+)\), no compaction$/,
    (t) => `journal des paiements : horloge invraisemblable (${t}), pas de compactage`,
  ],
  [
    /^ledger: compacted, (\d+) expired payments dropped$/,
    (k) => `journal des paiements : compacté, ${k} paiement(s) expiré(s) retiré(s)`,
  ],
  [/^printer: printer: paper out$/, () => 'imprimante : plus de papier'],
  [/^printer: printer: fault$/, () => 'imprimante : en panne'],
  [/^printer: (.*)$/, (e) => `imprimante : ${q(e)}`],
  [/^fault (\S+) in (\S+): (.*)$/, (k, w, m) => `panne ${k} dans ${w} : ${q(m)}`],
];

/** A device log line in French; one not known as it is. */
function frLog(line: string): string {
  return matchProblem(LOG_LINES, line) ?? line;
}

/** A browser error's DOMException name (IndexedDB, camera, image decoding) in French. */
function frBrowser(name: string): string {
  return (
    {
      QuotaExceededError: 'plus de place pour le navigateur',
      NotAllowedError: 'accès refusé par le navigateur ou par vous',
      NotFoundError: 'introuvable',
      NotReadableError: 'déjà utilisé par une autre application',
      SecurityError: 'interdit par le navigateur (page non sécurisée ou navigation privée ?)',
      InvalidStateError: 'base du navigateur inutilisable',
      VersionError: 'base du navigateur d’une autre version',
      UnknownError: 'erreur inconnue du navigateur',
      AbortError: 'interrompu',
    }[name] ?? `erreur du navigateur (${name})`
  );
}
