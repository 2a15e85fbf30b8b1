/**
 * Word lists of the data generator. Small on purpose: a Zipf-like choice over a few hundred words
 * gives realistic search behaviour (some words in most descriptions, many in few).
 */
export const ADJECTIVES = [
  'last', 'silent', 'broken', 'golden', 'hidden', 'lost', 'secret', 'forgotten', 'burning', 'quiet', 'endless', 'wild', 'bitter',
  'gentle', 'crimson', 'silver', 'hollow', 'stolen', 'distant', 'winter', 'summer', 'midnight', 'ancient', 'restless', 'fragile',
  'wicked', 'honest', 'strange', 'curious', 'brave', 'lonely', 'final', 'second', 'little', 'grand', 'shattered', 'painted', 'drowned',
  'clockwork', 'haunted', 'borrowed', 'unwritten', 'impossible', 'scarlet', 'iron', 'paper', 'glass', 'velvet', 'salt', 'starlit',
  'unspoken', 'tender', 'cruel', 'faithful', 'reluctant', 'sudden', 'careful', 'reckless', 'wandering', 'sleeping', 'waking', 'northern',
  'southern', 'eastern', 'western', 'foggy', 'moonlit', 'sunlit', 'ruined', 'crooked', 'gilded', 'dusty', 'wounded', 'royal', 'humble',
];

export const NOUNS = [
  'heart', 'crown', 'letter', 'garden', 'shadow', 'storm', 'promise', 'secret', 'river', 'house', 'road', 'song', 'mirror', 'key',
  'door', 'ship', 'sea', 'night', 'morning', 'summer', 'winter', 'city', 'forest', 'tower', 'war', 'ghost', 'dream', 'name', 'debt',
  'bargain', 'wedding', 'funeral', 'ball', 'journey', 'voyage', 'island', 'castle', 'village', 'inn', 'library', 'map', 'compass',
  'clock', 'lantern', 'candle', 'rose', 'thorn', 'feather', 'sword', 'ring', 'locket', 'portrait', 'diary', 'stranger', 'heir',
  'thief', 'knight', 'witch', 'queen', 'king', 'prince', 'princess', 'detective', 'captain', 'sailor', 'soldier', 'governess', 'servant',
  'sister', 'brother', 'mother', 'father', 'friend', 'rival', 'enemy', 'lover', 'wolf', 'raven', 'fox', 'hound', 'dragon', 'star',
  'moon', 'sun', 'fire', 'ash', 'snow', 'rain', 'wind', 'tide', 'bridge', 'gate', 'well', 'stair', 'window', 'attic', 'cellar',
  'orchard', 'meadow', 'moor', 'harbour', 'lighthouse', 'carriage', 'train', 'telegram', 'will', 'inheritance', 'scandal', 'murder',
  'mystery', 'riddle', 'curse', 'spell', 'prophecy', 'bet', 'duel', 'masquerade', 'season', 'festival', 'exile', 'return', 'escape',
];

export const VERBS = [
  'find', 'lose', 'keep', 'break', 'mend', 'steal', 'hide', 'forgive', 'remember', 'forget', 'follow', 'leave', 'return to', 'save',
  'betray', 'marry', 'refuse', 'escape', 'face', 'outwit', 'defend', 'uncover', 'confess', 'survive', 'win back', 'bury', 'burn',
  'chase', 'deliver', 'guard', 'rebuild', 'solve', 'trust', 'doubt', 'answer', 'question', 'cross', 'rescue', 'tame', 'understand',
];

export const PLACES = [
  'London', 'Paris', 'Bath', 'the moors', 'the sea', 'Pemberley', 'Baker Street', 'Wonderland', 'Neverland', 'Oz', 'Camelot',
  'Sherwood', 'Ithaca', 'Troy', 'Thornfield', 'the north', 'the city', 'the old house', 'the village', 'the coast', 'the mountains',
  'the harbour', 'the palace', 'the abbey', 'the orchard', 'the island', 'Venice', 'Vienna', 'Edinburgh', 'St. Petersburg',
];

export const TIMES = [
  'before the first snow', 'after the war', 'by midsummer', 'before dawn', 'within a week', 'one winter', 'that autumn',
  'years later', 'on the night of the ball', 'before the wedding', 'after the funeral', 'at the turn of the century',
  'in the last days of summer', 'before the tide turns', 'when the clock strikes twelve', 'for one more season',
];

export const FEELINGS = [
  'love', 'grief', 'hope', 'pride', 'fear', 'courage', 'jealousy', 'loyalty', 'longing', 'guilt', 'kindness', 'ambition', 'regret',
  'friendship', 'duty', 'desire', 'revenge', 'forgiveness', 'trust', 'honour',
];
