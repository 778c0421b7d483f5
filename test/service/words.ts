/**
 * Vocabulary for the seeded supplier: a regional foodservice, janitorial and smallwares distributor.
 * Plausible names make the demo read like a real account and make search tests meaningful.
 */

interface Brand {
  brand: string
  manufacturer: string
}

export interface LeafSpec {
  name: string
  /** SKU prefix. */
  prefix: string
  brands: readonly Brand[]
  variants: readonly string[]
  nouns: readonly string[]
  sizes: readonly string[]
  packs: readonly string[]
  price: readonly [number, number]
  taxable: boolean
  perishable: boolean
  serials?: boolean
  colors?: readonly string[]
  /** Items of this leaf are sold as product groups with one child per size. */
  sizeGroup?: readonly string[]
}

interface BranchSpec {
  name: string
  leaves: readonly LeafSpec[]
}

export interface CatalogSpec {
  name: string
  version: string
  orderPrefix: string
  share: number
  priceGroups: readonly { name: string; percentage: number }[]
  deletedPriceGroup?: string
  branches: readonly BranchSpec[]
}

const roasters: Brand[] = [
  { brand: 'Bayside Roasters', manufacturer: 'Bayside Roasting Co.' },
  { brand: 'Copper Kettle', manufacturer: 'Copper Kettle Beverage Inc.' },
  { brand: 'Highland Peak', manufacturer: 'Highland Peak Foods' },
]
const pantry: Brand[] = [
  { brand: 'Prairie Gold', manufacturer: 'Prairie Gold Mills LLC' },
  { brand: 'Harbor Point Select', manufacturer: 'Harbor Point Supply Co.' },
  { brand: 'Sunfield', manufacturer: 'Sunfield Farms Cooperative' },
  { brand: 'Casa Roma', manufacturer: 'Casa Roma Imports' },
]
const paper: Brand[] = [
  { brand: 'EverServe', manufacturer: 'EverServe Packaging Corp.' },
  { brand: 'GreenLeaf', manufacturer: 'GreenLeaf Compostables' },
  { brand: 'Harbor Point Select', manufacturer: 'Harbor Point Supply Co.' },
]
const janitorial: Brand[] = [
  { brand: 'ProShine', manufacturer: 'ProShine Chemical Co.' },
  { brand: 'Clearwater', manufacturer: 'Clearwater Sanitation Products' },
  { brand: 'SteelGrip', manufacturer: 'SteelGrip Industrial' },
]
const snacks: Brand[] = [
  { brand: 'Crunch Valley', manufacturer: 'Crunch Valley Snacks' },
  { brand: 'Grandma Ellie', manufacturer: 'Ellie Baking Company' },
]
const kitchen: Brand[] = [
  { brand: 'ChefLine', manufacturer: 'ChefLine Commercial' },
  { brand: 'Vollmer', manufacturer: 'Vollmer Küchentechnik GmbH' },
  { brand: 'IronCraft', manufacturer: 'IronCraft Metalworks' },
]
const appliances: Brand[] = [
  { brand: 'BrewMaster', manufacturer: 'BrewMaster Appliances' },
  { brand: 'Torrent', manufacturer: 'Torrent Blending Systems' },
]
const safety: Brand[] = [
  { brand: 'SafeHands', manufacturer: 'SafeHands Protective Wear' },
  { brand: 'MediReady', manufacturer: 'MediReady Supply' },
]

export const catalogSpecs: readonly CatalogSpec[] = [
  {
    name: 'Foodservice & Janitorial',
    version: '2026.3',
    orderPrefix: '',
    share: 0.72,
    priceGroups: [
      { name: 'Retail', percentage: 0 },
      { name: 'Wholesale', percentage: -12 },
      { name: 'Distributor', percentage: -20 },
      { name: 'Key Account', percentage: -25 },
    ],
    deletedPriceGroup: 'Legacy Dealer 2023',
    branches: [
      {
        name: 'Beverages',
        leaves: [
          {
            name: 'Coffee',
            prefix: 'BCF',
            brands: roasters,
            variants: [
              'Colombian Supremo',
              'French Roast',
              'Breakfast Blend',
              'Decaf House Blend',
              'Espresso Roast',
              'Hazelnut Cream',
              'Sumatra Mandheling',
            ],
            nouns: ['Whole Bean Coffee', 'Ground Coffee', 'Coffee Pods', 'Fraction Packs'],
            sizes: ['12 oz', '2 lb', '5 lb', '2.5 oz'],
            packs: ['6/Case', '12/Case', '42/Case', 'Each'],
            price: [8, 95],
            taxable: false,
            perishable: true,
          },
          {
            name: 'Tea',
            prefix: 'BTE',
            brands: roasters,
            variants: ['English Breakfast', 'Green', 'Chamomile', 'Earl Grey', 'Peppermint', 'Black Iced'],
            nouns: ['Tea Bags', 'Iced Tea Brew Bags', 'Loose Leaf Tea'],
            sizes: ['100 ct', '24 ct', '1 lb'],
            packs: ['6/Case', '12/Case', 'Each'],
            price: [5, 60],
            taxable: false,
            perishable: true,
          },
          {
            name: 'Juices',
            prefix: 'BJU',
            brands: pantry,
            variants: ['Orange', 'Apple', 'Cranberry', 'Grapefruit', 'Tomato'],
            nouns: ['Juice', 'Juice Concentrate'],
            sizes: ['10 oz', '46 oz', '1 gal'],
            packs: ['24/Case', '12/Case', '4/Case'],
            price: [12, 70],
            taxable: false,
            perishable: true,
          },
          {
            name: 'Bottled Water',
            prefix: 'BWA',
            brands: pantry,
            variants: ['Spring', 'Purified', 'Sparkling', 'Lemon Sparkling'],
            nouns: ['Water'],
            sizes: ['16.9 oz', '1 L', '5 gal'],
            packs: ['24/Case', '12/Case', 'Each'],
            price: [4, 30],
            taxable: false,
            perishable: false,
          },
        ],
      },
      {
        name: 'Dry Goods',
        leaves: [
          {
            name: 'Baking',
            prefix: 'DBK',
            brands: pantry,
            variants: ['All-Purpose', 'Bread', 'Cake', 'Whole Wheat', 'Unbleached'],
            nouns: ['Flour', 'Baking Mix', 'Pancake Mix'],
            sizes: ['5 lb', '25 lb', '50 lb'],
            packs: ['Each', '6/Case', '4/Case'],
            price: [6, 48],
            taxable: false,
            perishable: true,
          },
          {
            name: 'Pasta & Rice',
            prefix: 'DPR',
            brands: pantry,
            variants: ['Penne Rigate', 'Spaghetti', 'Elbow Macaroni', 'Long Grain White', 'Jasmine', 'Arborio'],
            nouns: ['Pasta', 'Rice'],
            sizes: ['1 lb', '10 lb', '20 lb'],
            packs: ['20/Case', '2/Case', 'Each'],
            price: [9, 55],
            taxable: false,
            perishable: false,
          },
          {
            name: 'Canned Vegetables',
            prefix: 'DCV',
            brands: pantry,
            variants: ['Cut Green Beans', 'Whole Kernel Corn', 'Diced Tomatoes', 'Sliced Mushrooms', 'Garbanzo Beans'],
            nouns: ['Fancy Grade', 'Extra Standard'],
            sizes: ['#10 Can', '15 oz Can', '28 oz Can'],
            packs: ['6/Case', '24/Case', '12/Case'],
            price: [14, 62],
            taxable: false,
            perishable: false,
          },
          {
            name: 'Sauces & Condiments',
            prefix: 'DSC',
            brands: pantry,
            variants: ['Marinara', 'Alfredo', 'Barbecue', 'Honey Mustard', 'Ranch', 'Sriracha'],
            nouns: ['Sauce', 'Dressing', 'Dipping Cups'],
            sizes: ['1 gal', '106 oz', '2 oz Cup'],
            packs: ['4/Case', '6/Case', '100/Case'],
            price: [11, 58],
            taxable: false,
            perishable: true,
          },
          {
            name: 'Spices',
            prefix: 'DSP',
            brands: pantry,
            variants: [
              'Ground Black Pepper',
              'Garlic Powder',
              'Smoked Paprika',
              'Italian Seasoning',
              'Ground Cumin',
              'Kosher Salt',
            ],
            nouns: ['Seasoning', 'Spice'],
            sizes: ['16 oz', '5 lb', '6 oz'],
            packs: ['Each', '6/Case', '3/Case'],
            price: [4, 40],
            taxable: false,
            perishable: false,
          },
        ],
      },
      {
        name: 'Disposables',
        leaves: [
          {
            name: 'Cups & Lids',
            prefix: 'PCL',
            brands: paper,
            variants: ['Hot', 'Cold', 'Double Wall Hot', 'Compostable Cold', 'Clear PET'],
            nouns: ['Cups', 'Sip Lids', 'Straw Slot Lids'],
            sizes: ['8 oz', '12 oz', '16 oz', '20 oz'],
            packs: ['1000/Case', '500/Case', '50/Sleeve'],
            price: [18, 120],
            taxable: true,
            perishable: false,
            colors: ['White', 'Kraft', 'Black', 'Clear'],
          },
          {
            name: 'Takeout Containers',
            prefix: 'PTC',
            brands: paper,
            variants: ['Hinged', 'Fiber', 'Foil', 'Microwavable', 'Two-Compartment'],
            nouns: ['Containers', 'Clamshells', 'Pans with Lids'],
            sizes: ['6 in', '9 in', '32 oz', 'Half Size'],
            packs: ['200/Case', '250/Case', '100/Case'],
            price: [22, 110],
            taxable: true,
            perishable: false,
          },
          {
            name: 'Cutlery',
            prefix: 'PCU',
            brands: paper,
            variants: ['Heavy Weight', 'Medium Weight', 'Compostable', 'Wrapped'],
            nouns: ['Forks', 'Knives', 'Spoons', 'Cutlery Kits'],
            sizes: ['Standard'],
            packs: ['1000/Case', '250/Case', '500/Case'],
            price: [12, 65],
            taxable: true,
            perishable: false,
            colors: ['White', 'Black', 'Natural'],
          },
          {
            name: 'Napkins',
            prefix: 'PNA',
            brands: paper,
            variants: ['Dinner', 'Beverage', 'Interfold Dispenser', 'Recycled'],
            nouns: ['Napkins'],
            sizes: ['1-Ply', '2-Ply', '3-Ply'],
            packs: ['3000/Case', '1000/Case', '6000/Case'],
            price: [15, 70],
            taxable: true,
            perishable: false,
            colors: ['White', 'Kraft'],
          },
        ],
      },
      {
        name: 'Janitorial',
        leaves: [
          {
            name: 'Cleaning Chemicals',
            prefix: 'JCC',
            brands: janitorial,
            variants: ['Neutral Floor', 'Glass', 'Degreaser', 'Disinfectant', 'Quat Sanitizer', 'Oven & Grill'],
            nouns: ['Cleaner', 'Concentrate', 'Ready-to-Use Spray'],
            sizes: ['32 oz', '1 gal', '2.5 gal'],
            packs: ['12/Case', '4/Case', '2/Case'],
            price: [16, 140],
            taxable: true,
            perishable: false,
          },
          {
            name: 'Paper Towels & Tissue',
            prefix: 'JPT',
            brands: paper,
            variants: ['Multifold', 'Hardwound Roll', 'Jumbo Roll', 'Standard Roll'],
            nouns: ['Towels', 'Bath Tissue'],
            sizes: ['800 ft', '9 in', '500 sheet'],
            packs: ['6/Case', '12/Case', '96/Case'],
            price: [24, 95],
            taxable: true,
            perishable: false,
            colors: ['White', 'Natural'],
          },
          {
            name: 'Trash Liners',
            prefix: 'JTL',
            brands: janitorial,
            variants: ['High Density', 'Low Density', 'Contractor', 'Recycled Content'],
            nouns: ['Can Liners'],
            sizes: ['24x33 in', '33x39 in', '40x46 in', '43x48 in'],
            packs: ['500/Case', '250/Case', '100/Case'],
            price: [20, 85],
            taxable: true,
            perishable: false,
            colors: ['Clear', 'Black', 'Gray'],
          },
          {
            name: 'Mops & Brooms',
            prefix: 'JMB',
            brands: janitorial,
            variants: ['Wet', 'Dust', 'Angle', 'Push', 'Microfiber'],
            nouns: ['Mop Head', 'Broom', 'Mop Handle', 'Dust Pan'],
            sizes: ['24 oz', '36 in', '60 in', '18 in'],
            packs: ['Each', '12/Case', '6/Case'],
            price: [6, 45],
            taxable: true,
            perishable: false,
            colors: ['Blue', 'Yellow', 'White', 'Black'],
          },
          {
            name: 'Hand Soap',
            prefix: 'JHS',
            brands: janitorial,
            variants: ['Foaming', 'Antibacterial', 'Lotion', 'Fragrance-Free'],
            nouns: ['Hand Soap', 'Hand Sanitizer'],
            sizes: ['1000 mL Refill', '1 gal', '8 oz Pump'],
            packs: ['6/Case', '4/Case', '12/Case'],
            price: [18, 90],
            taxable: true,
            perishable: false,
          },
        ],
      },
      {
        name: 'Snacks & Candy',
        leaves: [
          {
            name: 'Chips',
            prefix: 'SCH',
            brands: snacks,
            variants: ['Sea Salt', 'Barbecue', 'Sour Cream & Onion', 'Jalapeño', 'Salt & Vinegar'],
            nouns: ['Kettle Chips', 'Tortilla Chips', 'Pretzels'],
            sizes: ['1 oz', '1.5 oz', '2 oz'],
            packs: ['64/Case', '48/Case', '30/Case'],
            price: [14, 48],
            taxable: false,
            perishable: true,
          },
          {
            name: 'Cookies',
            prefix: 'SCO',
            brands: snacks,
            variants: ['Chocolate Chip', 'Oatmeal Raisin', 'Sugar', 'Double Chocolate', 'Snickerdoodle'],
            nouns: ['Cookies', 'Cookie Dough Pucks'],
            sizes: ['2 oz', '1.5 oz', '3 oz'],
            packs: ['120/Case', '72/Case', '48/Case'],
            price: [20, 75],
            taxable: false,
            perishable: true,
          },
        ],
      },
    ],
  },
  {
    name: 'Equipment & Smallwares',
    version: '2026.1',
    orderPrefix: 'EQ-',
    share: 0.28,
    priceGroups: [
      { name: 'Retail', percentage: 0 },
      { name: 'Wholesale', percentage: -10 },
      { name: 'Contract', percentage: -18 },
    ],
    branches: [
      {
        name: 'Cookware',
        leaves: [
          {
            name: 'Pots & Pans',
            prefix: 'ECP',
            brands: kitchen,
            variants: ['Aluminum', 'Tri-Ply Stainless', 'Carbon Steel', 'Nonstick', 'Cast Iron'],
            nouns: ['Fry Pan', 'Sauté Pan', 'Sauce Pan', 'Braiser'],
            sizes: ['8 in', '10 in', '12 in', '14 in', '3 qt'],
            packs: ['Each'],
            price: [18, 240],
            taxable: true,
            perishable: false,
          },
          {
            name: 'Sheet Pans',
            prefix: 'ESP',
            brands: kitchen,
            variants: ['Full Size', 'Half Size', 'Quarter Size', 'Perforated Half Size'],
            nouns: ['Sheet Pan', 'Wire Rack'],
            sizes: ['18 ga', '16 ga'],
            packs: ['Each', '12/Case'],
            price: [8, 150],
            taxable: true,
            perishable: false,
          },
          {
            name: 'Stockpots',
            prefix: 'EST',
            brands: kitchen,
            variants: ['Aluminum', 'Stainless Steel', 'Induction-Ready'],
            nouns: ['Stock Pot with Cover', 'Brazier'],
            sizes: ['20 qt', '40 qt', '60 qt', '80 qt'],
            packs: ['Each'],
            price: [45, 380],
            taxable: true,
            perishable: false,
          },
        ],
      },
      {
        name: 'Cutlery & Knives',
        leaves: [
          {
            name: 'Chef Knives',
            prefix: 'EKN',
            brands: kitchen,
            variants: ["Chef's", 'Santoku', 'Boning', 'Bread', 'Paring', 'Cleaver'],
            nouns: ['Knife'],
            sizes: ['3.5 in', '6 in', '8 in', '10 in'],
            packs: ['Each'],
            price: [9, 160],
            taxable: true,
            perishable: false,
            colors: ['Black', 'White', 'Red', 'Green', 'Yellow', 'Blue'],
          },
          {
            name: 'Cutting Boards',
            prefix: 'ECB',
            brands: kitchen,
            variants: ['Color-Coded', 'High-Density', 'Rubber', 'Bamboo'],
            nouns: ['Cutting Board'],
            sizes: ['12x18 in', '15x20 in', '18x24 in'],
            packs: ['Each', '6/Case'],
            price: [12, 95],
            taxable: true,
            perishable: false,
            colors: ['White', 'Red', 'Green', 'Yellow', 'Blue', 'Tan'],
          },
        ],
      },
      {
        name: 'Storage',
        leaves: [
          {
            name: 'Food Storage Containers',
            prefix: 'EFS',
            brands: kitchen,
            variants: ['Square', 'Round', 'Food Pan', 'Ingredient Bin'],
            nouns: ['Container', 'Lid', 'Container with Lid'],
            sizes: ['2 qt', '4 qt', '8 qt', '22 qt'],
            packs: ['Each', '6/Case', '12/Case'],
            price: [4, 85],
            taxable: true,
            perishable: false,
            colors: ['Clear', 'White', 'Translucent'],
          },
          {
            name: 'Shelving',
            prefix: 'ESH',
            brands: kitchen,
            variants: ['Chrome Wire', 'Epoxy Wire', 'Polymer', 'Stainless Solid'],
            nouns: ['Shelf', 'Post', 'Shelving Unit'],
            sizes: ['18x36 in', '24x48 in', '74 in', '86 in'],
            packs: ['Each', '4/Case'],
            price: [22, 520],
            taxable: true,
            perishable: false,
          },
        ],
      },
      {
        name: 'Small Appliances',
        leaves: [
          {
            name: 'Blenders',
            prefix: 'EBL',
            brands: appliances,
            variants: ['Commercial', 'High-Performance', 'Bar', 'Immersion'],
            nouns: ['Blender', 'Blender Jar'],
            sizes: ['48 oz', '64 oz', '1 hp', '3 hp'],
            packs: ['Each'],
            price: [60, 1400],
            taxable: true,
            perishable: false,
            serials: true,
          },
          {
            name: 'Coffee Makers',
            prefix: 'ECM',
            brands: appliances,
            variants: ['Pourover', 'Automatic', 'Thermal Server', 'Satellite'],
            nouns: ['Brewer', 'Decanter', 'Airpot'],
            sizes: ['12 cup', '1.5 gal', '2.2 L', '64 oz'],
            packs: ['Each', '3/Case'],
            price: [25, 1800],
            taxable: true,
            perishable: false,
            serials: true,
          },
          {
            name: 'Toasters',
            prefix: 'ETO',
            brands: appliances,
            variants: ['Pop-Up', 'Conveyor', 'Bun Grill'],
            nouns: ['Toaster'],
            sizes: ['4 slice', '6 slice', '350 slices/hr'],
            packs: ['Each'],
            price: [80, 2100],
            taxable: true,
            perishable: false,
            serials: true,
          },
        ],
      },
      {
        name: 'Safety',
        leaves: [
          {
            name: 'Gloves',
            prefix: 'EGL',
            brands: safety,
            variants: ['Powder-Free Nitrile', 'Vinyl', 'Latex', 'Cut-Resistant', 'Heat-Resistant'],
            nouns: ['Gloves'],
            sizes: ['Multi-Size'],
            packs: ['1000/Case', '100/Box', 'Pair'],
            price: [9, 120],
            taxable: true,
            perishable: false,
            colors: ['Blue', 'Black', 'Clear', 'White'],
            sizeGroup: ['S', 'M', 'L', 'XL'],
          },
          {
            name: 'First Aid',
            prefix: 'EFA',
            brands: safety,
            variants: ['25-Person', '50-Person', 'Burn Care', 'Blue Detectable'],
            nouns: ['First Aid Kit', 'Bandages', 'Burn Gel'],
            sizes: ['Standard', '1x3 in', '4 oz'],
            packs: ['Each', '100/Box', '6/Case'],
            price: [6, 140],
            taxable: true,
            perishable: false,
          },
        ],
      },
    ],
  },
]

export const sellingPoints = [
  'Consistent quality case after case.',
  'A favorite of busy commercial kitchens.',
  'Meets NSF standards for foodservice use.',
  'Stocked in our regional warehouse for next-day delivery.',
  'Sized for high-volume operations.',
  'Backed by the manufacturer’s one-year warranty.',
  'Packed to reduce waste and storage space.',
  'Easy to open, easy to store.',
  'Compatible with standard dispensers and racks.',
  'Recommended by our category specialists.',
]

export const customerPrefixes = [
  'Blue Heron',
  'Maple Street',
  'Lakeside',
  'Riverside',
  'Northgate',
  'Golden Fork',
  'Cedar Ridge',
  'Harborview',
  'Silver Spoon',
  'Pine Hollow',
  'Red Barn',
  'Westfield',
  'Oak & Ember',
  'Sunrise',
  'Union Square',
  'Copperline',
  'Mill Creek',
  'Juniper',
  'Seaside',
  'Old Town',
  'Brookside',
  'Hilltop',
  'Parkway',
  'Twin Rivers',
  'Magnolia',
  'Stonebridge',
  'Elm Street',
  'Bayfront',
  'Fairview',
  'Granite Hill',
  'Willow Bend',
  'Market Street',
]

export const customerKinds: readonly { category: string; suffixes: readonly string[] }[] = [
  {
    category: 'Restaurant',
    suffixes: ['Bistro', 'Diner', 'Grill', 'Kitchen', 'Taqueria', 'Pizzeria', 'Cafe', 'Brasserie', 'Noodle House'],
  },
  { category: 'Hotel', suffixes: ['Inn', 'Grand Hotel', 'Suites', 'Lodge', 'Resort & Spa'] },
  {
    category: 'School',
    suffixes: ['Elementary School', 'Middle School', 'High School', 'Academy', 'Community College'],
  },
  { category: 'Office', suffixes: ['Business Center', 'Law Offices', 'Coworking', 'Credit Union', 'Insurance Group'] },
  {
    category: 'Healthcare',
    suffixes: ['Family Dental', 'Medical Clinic', 'Senior Living', 'Veterinary Hospital', 'Urgent Care'],
  },
  { category: 'Grocery', suffixes: ['Market', 'Food Co-op', 'Deli & Grocery', 'Fresh Foods', 'Corner Store'] },
]

export const cities: readonly { city: string; state: string; zip: string; tz: string; lat: number; lng: number }[] = [
  { city: 'Portland', state: 'OR', zip: '972', tz: 'America/Los_Angeles', lat: 45.52, lng: -122.68 },
  { city: 'Seattle', state: 'WA', zip: '981', tz: 'America/Los_Angeles', lat: 47.61, lng: -122.33 },
  { city: 'Tacoma', state: 'WA', zip: '984', tz: 'America/Los_Angeles', lat: 47.25, lng: -122.44 },
  { city: 'Spokane', state: 'WA', zip: '992', tz: 'America/Los_Angeles', lat: 47.66, lng: -117.43 },
  { city: 'Boise', state: 'ID', zip: '837', tz: 'America/Boise', lat: 43.62, lng: -116.2 },
  { city: 'Eugene', state: 'OR', zip: '974', tz: 'America/Los_Angeles', lat: 44.05, lng: -123.09 },
  { city: 'Salem', state: 'OR', zip: '973', tz: 'America/Los_Angeles', lat: 44.94, lng: -123.04 },
  { city: 'Bend', state: 'OR', zip: '977', tz: 'America/Los_Angeles', lat: 44.06, lng: -121.31 },
  { city: 'Vancouver', state: 'WA', zip: '986', tz: 'America/Los_Angeles', lat: 45.64, lng: -122.66 },
  { city: 'Missoula', state: 'MT', zip: '598', tz: 'America/Denver', lat: 46.87, lng: -113.99 },
  { city: 'Sacramento', state: 'CA', zip: '958', tz: 'America/Los_Angeles', lat: 38.58, lng: -121.49 },
  { city: 'Reno', state: 'NV', zip: '895', tz: 'America/Los_Angeles', lat: 39.53, lng: -119.81 },
]

export const streets = [
  'Main St',
  'Oak Ave',
  'Burnside St',
  'Division St',
  'Alder St',
  'Harbor Blvd',
  'Lake Dr',
  'Market St',
  'Pine St',
  'Broadway',
  'Industrial Way',
  'Commerce Pkwy',
  'Cedar Ln',
  'Mill Rd',
  'Front St',
  'Union Ave',
  '2nd Ave',
  '5th St',
  'Riverside Dr',
  'Airport Rd',
]

export const firstNames = [
  'Maria',
  'James',
  'Priya',
  'Daniel',
  'Aisha',
  'Tom',
  'Mei',
  'Carlos',
  'Hannah',
  'Omar',
  'Grace',
  'Luis',
  'Nora',
  'Ethan',
  'Sofia',
  'Kenji',
  'Rachel',
  'Marcus',
  'Elena',
  'Sam',
]

export const lastNames = [
  'Alvarez',
  'Nguyen',
  'Okafor',
  'Schmidt',
  'Patel',
  'Kowalski',
  'Brennan',
  'Tanaka',
  'Haddad',
  'Larsen',
  'Moreau',
  'Silva',
  'Fischer',
  'Reyes',
  'Chen',
  'Murphy',
  'Novak',
  'Ibrahim',
  'Costa',
  'Walsh',
]
